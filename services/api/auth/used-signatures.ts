/**
 * Single use of POST/PATCH/DELETE signatures across the Redis -> PostgreSQL switch-over (docs/outages.md).
 * Redis answers first use (SET NX) while it is connected; every signature it accepts is also written
 * behind to PostgreSQL (`used_signatures`) in one INSERT per FLUSH_EVERY_MS, so once Redis goes away the
 * fallback finds what Redis saw. The fallback first writes out this process's own pending signatures, so
 * within one API process nothing seen before the switch is missed. The other way: on every (re)connect the
 * signatures of the window are copied from PostgreSQL into Redis before Redis answers again (a Redis that
 * restarted lost its keys; signatures used during the outage are only in PostgreSQL); until then the
 * fallback answers and also marks Redis.
 */
import { logger } from '../../platform/logger';
import type { Runtime } from '../../chain/clients';
import { luaScript, type Redis } from '../../platform/redis';
import { spendLua } from './budget';

/** How long a signature stays used: the ±300 s timestamp window, both sides. */
export const REPLAY_TTL_S = 600;
/** Write-behind period: the longest a signature seen by Redis in another API process is not in PostgreSQL. */
const FLUSH_EVERY_MS = 200;
/** Bound on signatures waiting for PostgreSQL (it away too): the oldest go first, with a warning. */
const MAX_PENDING = 100_000;
/** Rows copied into Redis per query on reconnect. */
const BACKFILL_PAGE = 5_000;
/** Wait before copying again after a failed copy (PostgreSQL away too). */
const BACKFILL_RETRY_MS = 1_000;
/** Expired rows are deleted at most this often (the insert itself ignores them). */
const PURGE_EVERY_MS = 60_000;

export class UsedSignatures {
  /** Signatures Redis accepted that PostgreSQL does not have yet: hash -> expiry (clock ms). */
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** True once Redis holds every signature of the window (copied after its last connect). */
  private synced = false;
  private connection = 0;
  private purgedAt = 0;
  private closed = false;
  /** The copy of the current connection, settled when Redis answers again or the copy failed (retried). */
  private copying: Promise<void> = Promise.resolve();

  constructor(private readonly rt: Pick<Runtime, 'pool' | 'redis' | 'clock' | 'cfg'>) {
    const { redis } = rt;
    redis.on('ready', () => void (this.copying = this.backfill(++this.connection)));
    redis.on('close', () => {
      this.synced = false;
      this.connection++;
    });
    redis.on('end', () => {
      this.closed = true;
      clearTimeout(this.timer);
    });
    if (redis.status === 'ready') this.copying = this.backfill(++this.connection);
  }

  /**
   * Waits for the copy into Redis that starts with this guard (start-up: until then each signature goes to
   * PostgreSQL's fallback, a row insert per signed write). True when Redis answers signatures now.
   */
  async start(): Promise<boolean> {
    await this.copying;
    return this.redisAnswers;
  }

  /** Whether Redis answers (connected, and the window's signatures copied into it); else PostgreSQL does. */
  get redisAnswers(): boolean {
    return this.synced && this.rt.redis.status === 'ready';
  }

  /** True the first time `hash` is presented within its window. */
  async firstUse(hash: string): Promise<boolean> {
    const marked = await this.markInRedis(hash, async (key) => ((await this.rt.redis.set(key, '1', 'EX', REPLAY_TTL_S, 'NX')) === 'OK' ? 0 : -1));
    return marked.fresh;
  }

  /**
   * firstUse, and on a first use the budget `spend` in the same Redis call (one script: SET NX, then INCR and
   * PEXPIRE on the window's first use), so a signed write costs one Redis command, not two. A replay spends
   * nothing, as when the two were apart. `used` is the budget's count after this spend, or null when it was
   * not spent here (a replay, Redis not answering): the caller spends it the usual way then.
   */
  async firstUseAndSpend(hash: string, spend: { key: string; ttlMs: number }): Promise<{ fresh: boolean; used: number | null }> {
    return this.markInRedis(hash, async (key) => Number(await useAndSpendScript(this.rt.redis, key, spend.key, REPLAY_TTL_S, spend.ttlMs)));
  }

  /**
   * The one protocol of both checks: `mark` sets the signature's Redis key if free and answers a count (-1: it
   * was taken, a replay); PostgreSQL answers while Redis does not, and then nothing was counted (`used` null).
   */
  private async markInRedis(hash: string, mark: (key: string) => Promise<number>): Promise<{ fresh: boolean; used: number | null }> {
    const now = this.rt.clock.now();
    const expiresAt = now + REPLAY_TTL_S * 1000;
    if (this.redisAnswers) {
      try {
        const n = await mark(this.key(hash));
        if (n < 0) return { fresh: false, used: null };
        this.remember(hash, expiresAt);
        return { fresh: true, used: n };
      } catch (err) {
        logger.debug({ err }, 'redis refused the signature check; PostgreSQL answers');
      }
    }
    return { fresh: await this.firstUseInDatabase(hash, now, expiresAt), used: null };
  }

  private key(hash: string): string {
    return `${this.rt.cfg.topicPrefix}sig:${hash}`;
  }

  private remember(hash: string, expiresAt: number): void {
    this.pending.set(hash, expiresAt);
    if (this.pending.size > MAX_PENDING) {
      const oldest = this.pending.keys().next().value as string;
      this.pending.delete(oldest);
      logger.warn({ pending: this.pending.size }, 'used signatures: PostgreSQL behind; the oldest unwritten one dropped');
    }
    if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS).unref();
  }

  /** Writes the pending signatures in one statement; kept for the next pass when PostgreSQL fails. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      this.timer = undefined;
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.rt.pool.query(
          `INSERT INTO used_signatures (signature_hash, expires_at)
           SELECT h, to_timestamp(e / 1000.0) FROM unnest($1::text[], $2::float8[]) AS t(h, e) ON CONFLICT DO NOTHING`,
          [[...batch.keys()], [...batch.values()]],
        );
        await this.purge();
      } catch (err) {
        if ((this.rt.pool as { ending?: boolean }).ending) return;
        logger.warn({ err, signatures: batch.size }, 'used signatures: write-behind failed; retrying');
        for (const [h, e] of batch) if (!this.pending.has(h)) this.pending.set(h, e);
        if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS).unref();
      }
    });
    return this.flushing;
  }

  /**
   * The fallback: this process's pending signatures written first, then the insert decides. A row past its
   * expiry counts as free. While Redis is connected but not yet synced, the signature is marked there too,
   * so Redis knows it once it answers again.
   */
  private async firstUseInDatabase(hash: string, now: number, expiresAt: number): Promise<boolean> {
    await this.flush();
    await this.purge();
    const { rowCount } = await this.rt.pool.query(
      `INSERT INTO used_signatures AS u (signature_hash, expires_at) VALUES ($1, $2)
       ON CONFLICT (signature_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE u.expires_at < $3`,
      [hash, new Date(expiresAt), new Date(now)],
    );
    if (this.rt.redis.status === 'ready') await this.rt.redis.set(this.key(hash), '1', 'EX', REPLAY_TTL_S, 'NX').catch(() => undefined);
    return rowCount === 1;
  }

  /** Deletes expired rows, at most once per PURGE_EVERY_MS per process (the insert ignores them anyway). */
  private async purge(): Promise<void> {
    const now = this.rt.clock.now();
    if (now - this.purgedAt < PURGE_EVERY_MS) return;
    this.purgedAt = now;
    await this.rt.pool.query('DELETE FROM used_signatures WHERE expires_at < $1', [new Date(now)]);
  }

  /** Copies the window's signatures from PostgreSQL into Redis; Redis answers again once done. */
  private async backfill(connection: number): Promise<void> {
    const { pool, clock, redis } = this.rt;
    try {
      let after = '';
      for (;;) {
        const now = clock.now();
        const { rows } = await pool.query(
          `SELECT signature_hash, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms FROM used_signatures
            WHERE expires_at > $1 AND signature_hash > $2 ORDER BY signature_hash LIMIT $3`,
          [new Date(now), after, BACKFILL_PAGE],
        );
        if (connection !== this.connection) return;
        await copyInto(redis, rows.map((r: { signature_hash: string; expires_ms: number }) => ({
          key: this.key(r.signature_hash), ttlMs: Math.max(1, clock.realDelay(r.expires_ms - now)),
        })));
        if (rows.length < BACKFILL_PAGE) break;
        after = rows[rows.length - 1].signature_hash;
      }
      if (connection === this.connection && redis.status === 'ready') this.synced = true;
    } catch (err) {
      if ((pool as { ending?: boolean }).ending || this.closed) return;
      logger.warn({ err }, 'used signatures: copying into Redis failed; PostgreSQL answers meanwhile, retrying');
      setTimeout(() => void (connection === this.connection && this.backfill(connection)), BACKFILL_RETRY_MS).unref();
    }
  }
}

/** SET NX of the signature; when it was free, the budget's INCR (PEXPIRE on its first use). -1: a replay. */
const useAndSpendScript = luaScript(`if not redis.call('SET', KEYS[1], '1', 'EX', ARGV[1], 'NX') then return -1 end ${spendLua(2)}`, 2);

async function copyInto(redis: Redis, entries: Array<{ key: string; ttlMs: number }>): Promise<void> {
  if (entries.length === 0) return;
  const batch = redis.pipeline();
  for (const e of entries) batch.set(e.key, '1', 'PX', Math.round(e.ttlMs), 'NX');
  const results = await batch.exec();
  const failed = results?.find(([err]) => err);
  if (failed) throw failed[0];
}

const guards = new WeakMap<object, UsedSignatures>();

/** The guard of this runtime's Redis connection (one per connection, built on first use). */
export function usedSignatures(rt: Pick<Runtime, 'pool' | 'redis' | 'clock' | 'cfg'>): UsedSignatures {
  let guard = guards.get(rt.redis);
  if (!guard) guards.set(rt.redis, (guard = new UsedSignatures(rt)));
  return guard;
}
