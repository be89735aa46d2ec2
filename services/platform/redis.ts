import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { logger } from './logger';
import { parseOwnJson } from './json';

/** TLS of a `rediss://` URL: the CA file's certificates trusted (read once, at start). */
export function redisTls(url: string, caFile: string | undefined): { tls?: { ca?: Buffer } } {
  if (!url.startsWith('rediss:')) return {};
  return { tls: caFile ? { ca: readFileSync(caFile) } : {} };
}

/**
 * Waits (bounded) for a new client's first answer. A refused handshake (an untrusted certificate) or refused
 * credentials fail the start, naming Redis and why; Redis merely away does not (the service serves without it),
 * and is not waited for.
 */
export async function reachRedis(redis: Redis, url: string, timeoutMs = 5_000): Promise<void> {
  const misconfigured = (err: Error & { code?: string }) =>
    /WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(err.message) ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/.test(err.code ?? '') || /certificate|ssl|tls/i.test(err.message);
  const failure = await new Promise<Error | null>((resolve) => {
    const timer = setTimeout(() => done(null), timeoutMs);
    // The first answer decides: refused TLS or credentials fail; anything else (refused, reset) is Redis away.
    const onError = (err: Error) => done(misconfigured(err) ? err : null);
    const done = (err: Error | null) => {
      clearTimeout(timer);
      redis.off('error', onError);
      redis.off('ready', onReady);
      resolve(err);
    };
    const onReady = () => done(null);
    if (redis.status === 'ready') return done(null);
    redis.on('error', onError);
    redis.on('ready', onReady);
  });
  if (failure) {
    const target = new URL(url);
    throw new Error(`Redis at ${target.hostname}:${target.port || '6379'} (REDIS_URL): ${failure.message}`);
  }
}

export function createRedis(url: string, options: { autoPipeline?: boolean; tlsCaFile?: string } = {}): Redis {
  // Fail a command quickly while Redis is away instead of queueing it forever; callers fall back to PostgreSQL.
  // Auto-pipelining: commands issued in the same event-loop turn (many requests at once) share one write.
  // Reconnect at most every 500 ms, so a Redis that comes back is used again within half a second.
  const redis = new Redis(url, {
    maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, enableAutoPipelining: options.autoPipeline ?? true,
    retryStrategy: (times) => Math.min(times * 50, 500),
    ...redisTls(url, options.tlsCaFile),
  });
  // Connection errors while Redis is away are expected (every use has a fallback): one warning per outage,
  // not ioredis' "Unhandled error event" on stderr at every reconnection attempt.
  let warned = false;
  redis.on('error', (err) => {
    // The message only: ioredis' error carries the failed command, whose arguments include the password
    // (HELLO 3 AUTH default <password>) when authentication is what failed.
    if (!warned) logger.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'redis unavailable; falling back until it is back');
    warned = true;
  });
  redis.on('ready', () => (warned = false));
  return redis;
}

/**
 * Runs `use` on Redis when it is connected, else (or when it fails) `fallback`, at once: while Redis is
 * away a request must not wait out reconnection attempts (services/api/auth, the processor's replies).
 */
export async function withRedis<T>(redis: Redis, use: (r: Redis) => Promise<T>, fallback: (err: unknown) => Promise<T> | T): Promise<T> {
  if (redis.status !== 'ready') return fallback(new Error(`redis ${redis.status}`));
  try {
    return await use(redis);
  } catch (err) {
    return fallback(err);
  }
}

/**
 * A Lua script run by EVALSHA (EVAL once when the server does not know it yet: first use, or a restarted
 * Redis). Not ioredis' defineCommand: a command defined lazily while an auto-pipeline of the same turn was
 * already open is missing from that pipeline, whose callbacks then get no result and throw outside any
 * promise ("results[i] is not iterable"), which ended an API process (seen under bench/orders.ts load).
 * EVALSHA and EVAL are built in, so every pipeline has them.
 */
export function luaScript(lua: string, numberOfKeys: number): (redis: Redis, ...args: Array<string | number>) => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (redis, ...args) => {
    try {
      return await redis.evalsha(sha, numberOfKeys, ...args);
    } catch (err) {
      if (!/^NOSCRIPT/.test((err as Error)?.message ?? '')) throw err;
      return redis.eval(lua, numberOfKeys, ...args);
    }
  };
}

/**
 * The channel every API instance listens on, beside its own reply channel, for orders the processor just
 * committed as broadcast (`delegated`): one message per committed slice, a JSON array of DeliveryNotice.
 */
export function deliveryChannel(network: string): string {
  return `${network}:replies:delivered`;
}

/**
 * One order on the delivery channel: its id, and the account it belongs to with the answer a read after
 * the commit gives (the order's JSON view), so a waiting answer need not read it back. A bare id (a
 * processor from before the answer was carried) still names the order: the waiting answer reads it.
 */
export interface DeliveryNotice {
  orderId: string;
  accountId?: string;
  answer?: Record<string, unknown>;
}

/** The notices of one delivery-channel message (bare ids included). */
export function parseDeliveryNotices(message: string): DeliveryNotice[] {
  // The answers' amounts are bigints where they pass 2^53: read back exactly as the processor wrote them.
  const items = parseOwnJson(message) as Array<string | DeliveryNotice>;
  return items.map((item) => (typeof item === 'string' ? { orderId: item } : item));
}

/** The channel a waiting instance listens on for the processor's answers; it carries the network. */
export function replyChannel(network: string, instanceId: string): string {
  return `${network}:replies:${instanceId}`;
}

export type { Redis };
