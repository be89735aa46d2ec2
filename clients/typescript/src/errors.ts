/** The error envelope of contract.md section 1, as an exception the client's helpers throw. */
import type { components } from '../generated/schema';

/** Every error code and slug the API answers (the document's ErrorCode and ErrorSlug enums). */
export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorSlug = components['schemas']['ErrorSlug'];

export interface ErrorEnvelope {
  error: { code: ErrorCode; slug: ErrorSlug; message: string; details: Record<string, unknown> | null };
  request_id: string;
}

export class EnergyApiError extends Error {
  readonly status: number;
  /** Null when the body was not the envelope (a proxy's page, say). */
  readonly code: ErrorCode | null;
  readonly slug: ErrorSlug | null;
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

  /** Narrows by slug or code: `if (err.is('insufficient_funds'))`, `err.is(4001)`. */
  is(which: ErrorSlug | ErrorCode): boolean {
    return typeof which === 'number' ? this.code === which : this.slug === which;
  }
}

/** True when `err` is the API's answer with this slug or code (any error may be passed); narrows `slug` or `code`. */
export function isApiError(err: unknown): err is EnergyApiError;
export function isApiError<S extends ErrorSlug>(err: unknown, which: S): err is EnergyApiError & { slug: S };
export function isApiError<C extends ErrorCode>(err: unknown, which: C): err is EnergyApiError & { code: C };
export function isApiError(err: unknown, which?: ErrorSlug | ErrorCode): err is EnergyApiError {
  return err instanceof EnergyApiError && (which === undefined || err.is(which));
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number';
}
