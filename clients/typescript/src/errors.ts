/** The error envelope of contract.md section 1, as an exception the client's helpers throw. */
export interface ErrorEnvelope {
  error: { code: number; slug: string; message: string; details: Record<string, unknown> | null };
  request_id: string;
}

export class EnergyApiError extends Error {
  readonly status: number;
  readonly code: number | null;
  readonly slug: string | null;
  readonly details: Record<string, unknown> | null;
  readonly requestId: string | null;
  /** The envelope's message alone (for people), or `HTTP <status>` when the body is not the envelope. */
  readonly reason: string;

  constructor(status: number, body: unknown, requestId: string | null) {
    const envelope = isEnvelope(body) ? body : null;
    super(envelope ? `${status} ${envelope.error.code} ${envelope.error.slug}: ${envelope.error.message}` : `HTTP ${status}`);
    this.name = 'EnergyApiError';
    this.status = status;
    this.code = envelope?.error.code ?? null;
    this.slug = envelope?.error.slug ?? null;
    this.details = envelope?.error.details ?? null;
    this.requestId = envelope?.request_id ?? requestId;
    this.reason = envelope?.error.message ?? `HTTP ${status}`;
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number';
}
