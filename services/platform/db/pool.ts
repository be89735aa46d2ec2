import pg from 'pg';
import { parseOwnJson } from '../json';

// int8 and json columns keep int64 exact: bigint for int8, lossless numbers inside jsonb. Every json
// value in the database is text PostgreSQL canonicalised from what the service wrote (jsonb keeps no
// duplicate key), so the engine's parser reads it (parseOwnJson: same values as parseJson, several times
// faster; lossless-json was a large share of the processor's and the chain roles' CPU reading outbox and
// order rows: bench/README.md, "Third pass: profiles of every process").
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => BigInt(text));
pg.types.setTypeParser(pg.types.builtins.JSONB, (text) => parseOwnJson(text));
pg.types.setTypeParser(pg.types.builtins.JSON, (text) => parseOwnJson(text));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * `min`: connections kept open when idle (pg-pool closes the others after 10 s idle); none are opened here (see
 * openConnections). The clients pipeline: queries issued without waiting for the one before go out together and
 * run in the order issued (one round trip for several independent reads, or for a transaction's last writes and
 * its COMMIT); code that awaits each query behaves as without.
 */
export function createPool(databaseUrl: string, max = 10, min = 0): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, min: Math.min(min, max), application_name: 'energy-rental', pipeline: true });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor a checked-out client's (a held LISTEN connection, a transaction): the query in flight fails with it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Opens `count` connections at once (up to the pool's max) and hands them back idle: start-up work, so
 * the first requests find connections ready instead of starting PostgreSQL backends on their path. With
 * `min` at least `count` they stay open.
 */
export async function openConnections(pool: pg.Pool, count: number): Promise<void> {
  const want = Math.min(count, pool.options.max) - pool.totalCount;
  if (want <= 0) return;
  const opened = await Promise.allSettled(Array.from({ length: want }, () => pool.connect()));
  for (const o of opened) if (o.status === 'fulfilled') o.value.release();
  const failed = opened.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * The transaction's last writes, sent with its COMMIT in one round trip: `send` issues its queries at once
 * (without awaiting one before the next) and settles when they are answered. When one of them fails, the
 * transaction is aborted and the COMMIT behind it rolls back: a write that must hold for the commit to happen
 * refuses itself in SQL (refuse_statement), since nothing can be checked in between.
 */
export type CommitWith = (send: () => Promise<unknown>) => void;

/**
 * Runs `fn` in one transaction; rolls back on any error and rethrows it. BEGIN is not waited for: `fn`'s first
 * statements go out behind it (the pool's clients pipeline) and run inside the transaction. `first`
 * (optional, a statement without parameters) is sent with BEGIN; `fn` gets the promise of its rows, to wait
 * for only when it needs them, and `commitWith` to have its last writes go with the COMMIT.
 */
export async function inTransaction<T>(
  pool: pg.Pool, fn: (client: pg.PoolClient, firstRows: Promise<any[]>, commitWith: CommitWith) => Promise<T>, first?: string,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // Two statements in one simple query answer with one result each.
    const begun = client.query(first === undefined ? 'BEGIN' : `BEGIN; ${first}`) as unknown as Promise<pg.QueryResult | pg.QueryResult[]>;
    const firstRows = begun.then((b) => (Array.isArray(b) ? b[b.length - 1].rows : []));
    // Awaited below, with the COMMIT; `fn` may never look at them.
    firstRows.catch(() => undefined);
    let last: (() => Promise<unknown>) | undefined;
    const result = await fn(client, firstRows, (send) => {
      last = send;
    });
    // Issued before the COMMIT is queued: the pipelined client sends both without waiting in between.
    const lastWrites = last?.();
    await Promise.all([firstRows, lastWrites, client.query('COMMIT')]);
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    broken = isConnectionError(err) ? (err as Error) : undefined;
    throw err;
  } finally {
    // A client whose connection broke (server restarted) is destroyed, not handed to the next caller.
    client.release(broken);
  }
}

/**
 * True for errors that mean the database is not reachable (refused, reset, terminated, shutting down or
 * starting up), as opposed to an answer about the query: callers answer 503 and retry, never 500.
 */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string') {
    if (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND)$/.test(code)) return true;
    // SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, cannot connect now).
    // SQLSTATE 53300 (too many connections): the server is full for now; a retry later gets in.
    if (/^(08...|57P0[1-3]|53300)$/.test(code)) return true;
    return false;
  }
  return /Connection terminated|Client has encountered a connection error|not queryable/.test(String((err as Error)?.message ?? ''));
}
