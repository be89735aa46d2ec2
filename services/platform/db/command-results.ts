/** Reading command_results: shared by the processor (duplicates) and every caller waiting for an answer. */
import type { CommandResult } from '../../domain/command-result';
import type { Statement } from './bulk';
import type { Pool, PoolClient } from './pool';

/** The final results stored for these commands (pending ones are not), for readResults or readTogether. */
export function resultsStatement(commandIds: string[]): Statement {
  return {
    sql: `SELECT command_id, outcome, http_status, body, error, refusal_reason FROM command_results
     WHERE command_id = ANY($1::text[]) AND outcome <> 'pending'`,
    params: [commandIds],
  };
}

export const resultsFromRows = (rows: Record<string, any>[]): Map<string, CommandResult> => new Map(rows.map((r) => [r.command_id, resultFromRow(r)]));

export async function readResults(client: PoolClient | Pool, commandIds: string[]): Promise<Map<string, CommandResult>> {
  if (commandIds.length === 0) return new Map();
  const { sql, params } = resultsStatement(commandIds);
  return resultsFromRows((await client.query(sql, params)).rows);
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

