/** The answer to one command, as stored in command_results and sent back to the waiting caller. */
import type { RefusalReason } from './commands';
import { errorCatalog, type DomainError } from './errors';

export interface CommandResult {
  commandId: string;
  outcome: 'applied' | 'rejected' | 'refused';
  status: number;
  body: Record<string, unknown> | null;
  error: DomainError | null;
  refusalReason: RefusalReason | null;
}

/** The one shape of a refusal, whoever records it (processor or a caller that gave up), so a replay matches. */
export function refusedResult(commandId: string, reason: RefusalReason): CommandResult {
  // Nothing was stored either way; an unprocessable command is the caller's to fix, not to retry.
  if (reason === 'unprocessable') {
    return {
      commandId, outcome: 'refused', status: errorCatalog.invalid_request.http, body: null,
      error: { slug: 'invalid_request', message: 'The request holds a value the service cannot store; nothing was done.', details: null },
      refusalReason: reason,
    };
  }
  return {
    commandId,
    outcome: 'refused',
    status: errorCatalog.service_unavailable.http,
    body: null,
    error: { slug: 'service_unavailable', message: errorCatalog.service_unavailable.message, details: null },
    refusalReason: reason,
  };
}
