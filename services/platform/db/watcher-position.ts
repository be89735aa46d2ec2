/**
 * deposit_watcher_position: the next block each chain watcher (deposits, the promo forward watcher) reads,
 * one row per watcher name. Not derived from the log: a watcher that re-reads blocks after a restart
 * appends the same command ids, which the processor applies once.
 */
import type { Pool } from './pool';

export async function loadWatcherPosition(pool: Pool, watcher: string, fallback: number): Promise<number> {
  const { rows } = await pool.query('SELECT next_block FROM deposit_watcher_position WHERE watcher = $1', [watcher]);
  return rows.length ? Number(rows[0].next_block) : fallback;
}

export async function saveWatcherPosition(pool: Pool, watcher: string, nextBlock: number): Promise<void> {
  await pool.query(
    `INSERT INTO deposit_watcher_position (watcher, next_block) VALUES ($1, $2)
     ON CONFLICT (watcher) DO UPDATE SET next_block = EXCLUDED.next_block, updated_at = now()`,
    [watcher, nextBlock],
  );
}
