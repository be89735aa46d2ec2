import { Redis } from 'ioredis';

export function createRedis(url: string, options: { autoPipeline?: boolean } = {}): Redis {
  // Fail a command quickly while Redis is away instead of queueing it forever; callers fall back to PostgreSQL.
  // Auto-pipelining: commands issued in the same event-loop turn (many requests at once) share one write.
  return new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, enableAutoPipelining: options.autoPipeline ?? true });
}

/** The channel a waiting instance listens on for the processor's answers; it carries the network. */
export function replyChannel(network: string, instanceId: string): string {
  return `${network}:replies:${instanceId}`;
}

export type { Redis };
