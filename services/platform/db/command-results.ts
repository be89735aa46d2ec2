/** Reading command_results: shared by the processor (duplicates) and every caller waiting for an answer. */
import type { CommandResult } from '../../domain/command-result';
import type { Pool, PoolClient } from './pool';

export async function readResults(client: PoolClient | Pool, commandIds: string[]): Promise<Map<string, CommandResult>> {
  if (commandIds.length === 0) return new Map();
  const { rows } = await client.query(
    `SELECT command_id, outcome, http_status, body, error, refusal_reason FROM command_results
     WHERE command_id = ANY($1::text[]) AND outcome <> 'pending'`,
    [commandIds],
  );
  return new Map(rows.map((r) => [r.command_id, resultFromRow(r)]));
}

export function resultFromRow(r: Record<string, any>): CommandResult {
  return {
    commandId: r.command_id,
    outcome: r.outcome,
    status: r.http_status,
    body: r.body,
    error: r.error,
    refusalReason: r.refusal_reason,
  };
}

