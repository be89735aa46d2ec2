/**
 * Retention of rows nothing needs once they are old (docs/security.md, "Retention"): they were never
 * deleted, so every challenge, bootstrap token, quote, sign-in and audit row stayed forever. None of
 * these tables is derived from the log (replayed-tables.ts), so deleting them changes no replay.
 *
 * Deletes go in bounded slices, so a first run over a long backlog never holds one long transaction.
 */
import type { Pool } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { PollingRole } from '../platform/polling-role';

const DAY_MS = 86_400_000;

/** How long each kind of row is kept past the moment it stops mattering. */
export const RETENTION = {
  /** Challenges live 10 minutes: a day past expiry. */
  challengesMs: DAY_MS,
  /** Bootstrap tokens live 15 minutes: a day past expiry. */
  bootstrapTokensMs: DAY_MS,
  /** Quotes live 60 s; a week past expiry, so an order naming one still answers 3012 rather than 404. */
  quotesMs: 7 * DAY_MS,
  /** Sign-in history: 90 days, but never an account's last 10 (GET /v1/session/history shows those). */
  signInsMs: 90 * DAY_MS,
  signInsKept: 10,
  /** Audit rows: 13 months, the analytics retention. */
  auditMs: 396 * DAY_MS,
} as const;

const SLICE = 5_000;

export type PurgeCounts = Record<'auth_challenges' | 'bootstrap_tokens' | 'quotes' | 'sign_ins' | 'audit_log', number>;

export async function purgeExpired(pool: Pool, now: number): Promise<PurgeCounts> {
  const at = (ms: number) => new Date(now - ms);
  return {
    auth_challenges: await inSlices(pool, 'DELETE FROM auth_challenges WHERE nonce IN (SELECT nonce FROM auth_challenges WHERE expires_at < $1 LIMIT $2)', at(RETENTION.challengesMs)),
    bootstrap_tokens: await inSlices(pool, 'DELETE FROM bootstrap_tokens WHERE token_hash IN (SELECT token_hash FROM bootstrap_tokens WHERE expires_at < $1 LIMIT $2)', at(RETENTION.bootstrapTokensMs)),
    quotes: await inSlices(pool, 'DELETE FROM quotes WHERE id IN (SELECT id FROM quotes WHERE expires_at < $1 LIMIT $2)', at(RETENTION.quotesMs)),
    sign_ins: await inSlices(
      pool,
      `DELETE FROM sign_ins WHERE id IN (
         SELECT s.id FROM sign_ins s
          WHERE s.signed_in_at < $1
            AND s.id < (SELECT k.id FROM sign_ins k WHERE k.account_id = s.account_id ORDER BY k.id DESC OFFSET ${RETENTION.signInsKept - 1} LIMIT 1)
          LIMIT $2)`,
      at(RETENTION.signInsMs),
    ),
    audit_log: await inSlices(pool, 'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < $1 LIMIT $2)', at(RETENTION.auditMs)),
  };
}

async function inSlices(pool: Pool, sql: string, before: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(sql, [before, SLICE]);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < SLICE) return total;
  }
}

/** Hourly, beside the reconciler (one per deployment). */
export const PURGE_EVERY_MS = 3_600_000;

export function startPurger(deps: { pool: Pool; clock: { now(): number } }): PollingRole {
  return new PollingRole('purger', PURGE_EVERY_MS, async () => {
    const counts = await purgeExpired(deps.pool, deps.clock.now());
    if (Object.values(counts).some((n) => n > 0)) logger.info({ purged: counts }, 'purged expired identity rows and old history');
  }).start();
}
