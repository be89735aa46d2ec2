/**
 * API-key rows kept in each API process, with every change (revocation, re-sealing, scopes) taking effect
 * at once on every instance.
 *
 * Each process LISTENs on `api_keys` on a connection of its own; a trigger on the table
 * (migrations/1764330000000_api-key-notify.sql) notifies the key id at the commit of any change that
 * matters to authentication. A notification alone would arrive "soon", not "before the next request": a
 * client told 204 for its revocation by one instance could reach another instance before that instance
 * read the notification off its socket. So a cached row is only served after a sync on the listening
 * connection that started after the request came in: PostgreSQL signals its listeners before the revoking
 * transaction's commit returns (so before any 204 can exist), and a listening backend sends every pending
 * notification before the ReadyForQuery of its next query. One empty query answers every request that
 * arrived while the previous one was out (group sync), on a connection no request queues for: a few
 * hundred microseconds instead of a pooled row read per request.
 *
 * While the listening connection is not up (not yet, or lost), nothing is served from the cache: every
 * request reads the row as before, the kept rows are dropped (notifications may have been missed) and the
 * connection is retried. A row read that a notification overtook is not kept (generation check).
 * Only rows that exist are kept (a new key needs no notification); the secret is opened per configuration
 * by openKeySecret, never kept here, so a process only ever signs with keys its configuration holds.
 */
import pg from 'pg';
import { logger } from '../../platform/logger';
import type { Pool } from '../../platform/db/pool';
import type { Redis } from '../../platform/redis';
import { findApiKey, type ApiKeyRow } from '../stores/api-keys';

export const API_KEYS_CHANNEL = 'api_keys';
/** The listening connection's application_name (pg_stat_activity). */
export const KEY_CACHE_APPLICATION = 'energy-rental-key-cache';
/** Bound on kept rows; when full the oldest goes (a miss costs one row read). */
const MAX_ROWS = 10_000;
/** Wait before connecting again after the listening connection failed or broke. */
const RECONNECT_MS = 1_000;
/**
 * A sync (or LISTEN) not answered within this long counts as a lost connection: requests read rows
 * instead of waiting on a connection that may be gone without a reset.
 */
const SYNC_TIMEOUT_MS = 5_000;

interface Waiter {
  resolve(synced: boolean): void;
}

export class ApiKeyCache {
  private client: pg.Client | undefined;
  /** True while `client` has LISTEN in force: only then are kept rows served. */
  private listening = false;
  private connecting = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly rows = new Map<string, ApiKeyRow>();
  /** Bumped by every notification and every loss of the connection: a row read across a bump is not kept. */
  private generation = 0;
  /** Requests waiting for the next sync, and whether one is out now. */
  private waiting: Waiter[] = [];
  private syncing = false;
  /** One warning per outage of the listening connection, not one per retry. */
  private warned = false;
  /** The last connect attempt, settled once it listens or failed. */
  private attempt: Promise<void> = Promise.resolve();

  constructor(private readonly pool: Pool) {}

  /** Whether `find` would answer `id` from memory (no read): known keys skip the credential-miss gate. */
  holds(id: string): boolean {
    return this.listening && !this.closed && this.rows.has(id);
  }

  /** The key's row, from memory when that is known to be current, else read from PostgreSQL. */
  async find(id: string): Promise<ApiKeyRow | undefined> {
    if (!this.listening || this.closed) {
      this.connect();
      return findApiKey(this.pool, id);
    }
    if (!(await this.sync())) return findApiKey(this.pool, id);
    const kept = this.rows.get(id);
    if (kept) return kept;
    const started = this.generation;
    const row = await findApiKey(this.pool, id);
    if (row && this.listening && started === this.generation) this.keep(row);
    return row;
  }

  /**
   * Opens the listening connection now rather than at the first request (start-up: that request would
   * read its row from the pool while the connection is being opened beside it). True once LISTEN is in
   * force; false when it failed, and then requests read rows until the retry listens, as ever.
   */
  async start(): Promise<boolean> {
    this.connect();
    await this.attempt;
    return this.serving;
  }

  /** Stops listening for good (the runtime is closing); requests read rows from then on. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.drop();
  }

  /** Rows kept now (tests). */
  get size(): number {
    return this.rows.size;
  }

  /** Whether kept rows are served now (the listening connection is up). */
  get serving(): boolean {
    return this.listening && !this.closed;
  }

  private keep(row: ApiKeyRow): void {
    if (this.rows.size >= MAX_ROWS) this.rows.delete(this.rows.keys().next().value as string);
    this.rows.set(row.id, row);
  }

  /**
   * Resolves true once an empty query sent after this call came back on the listening connection (every
   * notification committed before this call has then been applied), false when the connection went away.
   */
  private sync(): Promise<boolean> {
    return new Promise((resolve) => {
      this.waiting.push({ resolve });
      if (!this.syncing) void this.syncLoop();
    });
  }

  private async syncLoop(): Promise<void> {
    this.syncing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        const client = this.listening ? this.client : undefined;
        let ok = false;
        if (client) {
          try {
            await client.query('');
            ok = this.listening && this.client === client;
          } catch (err) {
            if (this.client === client) this.lose(err as Error);
          }
        }
        for (const w of batch) w.resolve(ok);
      }
    } finally {
      this.syncing = false;
    }
  }

  private connect(): void {
    if (this.connecting || this.listening || this.closed || this.retry || (this.pool as { ending?: boolean }).ending) return;
    this.connecting = true;
    const client = new pg.Client({
      ...this.pool.options, application_name: KEY_CACHE_APPLICATION, query_timeout: SYNC_TIMEOUT_MS, connectionTimeoutMillis: SYNC_TIMEOUT_MS,
    });
    const lost = (err?: Error) => {
      if (this.client === client) this.lose(err);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      if (msg.channel !== API_KEYS_CHANNEL || this.client !== client) return;
      this.generation++;
      if (msg.payload) this.rows.delete(msg.payload);
      else this.rows.clear();
    });
    this.client = client;
    this.attempt = (async () => {
      try {
        await client.connect();
        // The listening connection never keeps the process alive by itself.
        (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
        await client.query(`LISTEN ${API_KEYS_CHANNEL}`);
        if (this.client !== client || this.closed) return void client.end().catch(() => undefined);
        this.rows.clear();
        this.generation++;
        this.listening = true;
        this.warned = false;
      } catch (err) {
        if (this.client === client) this.lose(err as Error);
      } finally {
        this.connecting = false;
      }
    })();
  }

  /** The listening connection failed or broke: rows are read until a new one listens (retried). */
  private lose(err?: Error): void {
    if (err && !this.closed && !this.warned) {
      this.warned = true;
      logger.warn({ err: err.message }, 'api-key cache: no listening connection; reading key rows until it is back');
    }
    this.drop();
    this.later();
  }

  /** Forgets the connection and every kept row; requests waiting for a sync read their rows instead. */
  private drop(): void {
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    this.rows.clear();
    this.generation++;
    for (const w of this.waiting.splice(0)) w.resolve(false);
    client?.end().catch(() => undefined);
  }

  private later(): void {
    if (this.closed || this.retry || (this.pool as { ending?: boolean }).ending) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect();
    }, RECONNECT_MS).unref();
  }
}

const caches = new WeakMap<Pool, ApiKeyCache>();

/**
 * The cache of this runtime's pool (one per pool, built on first use). It stops listening when the
 * runtime's Redis connection ends, which `rt.close()` does before it ends the pool.
 */
export function apiKeyCache(rt: { pool: Pool; redis: Redis }): ApiKeyCache {
  let cache = caches.get(rt.pool);
  if (!cache) {
    const made = new ApiKeyCache(rt.pool);
    caches.set(rt.pool, made);
    rt.redis.once('end', () => made.close());
    cache = made;
  }
  return cache;
}
