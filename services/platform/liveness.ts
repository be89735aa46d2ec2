/**
 * Liveness of the background roles. A role marks progress where its loop turns (a consumer's fetch, a
 * polling pass's end): a role stuck inside one turn (a handler waiting on a lock for good) stops marking,
 * though its process and event loop are fine. Each process writes its roles' last progress to
 * role_heartbeats every few seconds; readers (any API instance) see every role of the deployment.
 */
import { hostname } from 'node:os';
import type { Pool } from './db/pool';
import { logger } from './logger';

const progress = new Map<string, number>();

/** Called by a role each time its loop turns. */
export function markProgress(role: string): void {
  progress.set(role, Date.now());
}

/** The roles of this process and when each last turned (ms since the epoch). */
export function progressOfProcess(): ReadonlyMap<string, number> {
  return progress;
}

export const INSTANCE = `${hostname()}:${process.pid}`;

/** Writes this process's progress every `everyMs` until stopped (a failed write is retried at the next). */
export function startHeartbeats(pool: Pool, everyMs: number): { stop(): Promise<void> } {
  let writing: Promise<unknown> = Promise.resolve();
  const write = () => {
    if (progress.size === 0) return;
    const roles = [...progress.keys()];
    const times = roles.map((r) => new Date(progress.get(r)!).toISOString());
    writing = pool.query(
      `INSERT INTO role_heartbeats (role, instance, progressed_at, written_at)
       SELECT r, $3, t, now() FROM unnest($1::text[], $2::timestamptz[]) AS u(r, t)
       ON CONFLICT (role, instance) DO UPDATE SET progressed_at = EXCLUDED.progressed_at, written_at = now()`,
      [roles, times, INSTANCE],
    ).catch((err: unknown) => logger.debug({ err }, 'role heartbeat not written'));
  };
  const timer = setInterval(write, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await writing;
    },
  };
}

export interface RoleLiveness {
  role: string;
  instance: string;
  /** Seconds since the role last made progress. */
  ageSeconds: number;
  stalled: boolean;
}

/**
 * Every role's freshest instance, as the readers see it: stalled when its last progress is older than
 * `stallMs`. Rows not written for a day (a process long gone, replaced under another instance) are left out.
 */
export async function readLiveness(pool: Pool, stallMs: number): Promise<RoleLiveness[]> {
  const { rows } = await pool.query(
    `SELECT DISTINCT ON (role) role, instance, extract(epoch FROM now() - progressed_at)::float8 AS age
       FROM role_heartbeats WHERE written_at > now() - interval '1 day'
      ORDER BY role, progressed_at DESC`,
  );
  return rows.map((r: { role: string; instance: string; age: number }) => ({
    role: r.role, instance: r.instance, ageSeconds: Math.max(0, r.age), stalled: r.age * 1000 > stallMs,
  }));
}
