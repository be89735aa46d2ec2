/**
 * The loop every polling role runs on (the delivery roles, the promo roles, the reconciler, the deposit
 * and subscription watchers, the batch executor): one of the two shapes a role's loop has, the other
 * being the checkpointed consumer of a topic (checkpointed-consumer.ts).
 */
import { errorCatalog, type ErrorSlug } from '../domain/errors';
import type { Pool, PoolClient } from './db/pool';
import { logger } from './logger';
import { markProgress } from './liveness';

/** An error of a dependency that is away for now (the chain's ChainUnavailable, slug code 5003): a warning, not a failure. */
function isOutage(err: unknown): boolean {
  const slug = (err as { slug?: unknown } | null)?.slug;
  return typeof slug === 'string' && slug in errorCatalog && errorCatalog[slug as ErrorSlug].http === 503;
}

/**
 * The next wait of a loop that found nothing to do again: twice the last, at least `baseMs`, at most `maxMs`
 * (a loop that found work starts again from a last wait of 0). PollingRole.idleBackOff and the relay's idle read.
 */
export function idleWaitAfter(lastMs: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, Math.max(baseMs, lastMs * 2));
}

/**
 * Runs `tick` every `every` ms (or after `every(tookMs)` ms, for a role whose next pass depends on its
 * last) until stopped; a failed pass is logged and retried: the first of a run of failures as a warning
 * (an outage) or an error, the ones after it at debug, and the recovery once, so an outage is one line,
 * not one per poll. A failure while stopping is not logged. With `wakeOn`, a NOTIFY on the channel starts
 * the next pass at once (one arriving during a pass: right after it); `wake()` does the same in-process.
 * With `idleBackOff`, passes that found nothing to do (the tick answers `false`) space out.
 */
export class PollingRole {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private listen: { pool: Pool; channel: string; client?: PoolClient } | undefined;
  private gapMs = 0;
  private failing = 0;
  private idleMaxMs = 0;
  /** The wait after the last pass that found nothing (0: the role is at its poll interval). */
  private idleWaitMs = 0;

  /** `tick` answers `false` when its pass found nothing to do (see idleBackOff); anything else counts as work. */
  constructor(private readonly name: string, private readonly every: number | ((tookMs: number) => number), private readonly tick: () => Promise<void | boolean>) {}

  start(): this {
    this.loop = this.run();
    return this;
  }

  /**
   * Passes a wake-up starts begin at most every `ms` after a pass a wake-up started (from its start): under a
   * stream of notifications (the processor commits every few ms under load) the work of that time is done in
   * one pass, its fixed cost (work-list reads, a reference block, one append, one store) paid once, not once
   * per commit. After a pass the poll started, a wake-up starts the next at once: idle, the first
   * notification is the only one, and waiting out the gap after a poll put up to `ms` on its path.
   */
  coalesce(ms: number): this {
    this.gapMs = ms;
    return this;
  }

  /**
   * Each pass in a row that found nothing to do doubles the wait before the next, up to `maxMs`; a pass
   * with work, or one a wake-up started, puts it back to the poll interval. For a role that every kind of
   * new work wakes (`wakeOn`: the idle poll is only the fallback for a lost notification) or whose work may
   * wait `maxMs`: with thousands of orders open and nothing happening, the idle polls were most of the
   * service's CPU (bench/README.md, "Idle CPU").
   */
  idleBackOff(maxMs: number): this {
    this.idleMaxMs = maxMs;
    return this;
  }

  /** Also woken by NOTIFY on `channel` (a held connection; lost, it is taken again at the next pass). */
  wakeOn(pool: Pool, channel: string): this {
    this.listen = { pool, channel };
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    // Cleared first: the connection's later error (the database going away) must not release it twice.
    const client = this.listen?.client;
    if (this.listen) this.listen.client = undefined;
    client?.release();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private async listening(): Promise<void> {
    const l = this.listen;
    if (!l || l.client) return;
    const client = await l.pool.connect();
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      if (l.client !== client) return;
      l.client = undefined;
      client.release(err);
    });
    try {
      await client.query(`LISTEN ${l.channel}`);
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    l.client = client;
  }

  private logFailure(err: unknown): void {
    const first = this.failing++ === 0;
    if (isOutage(err)) {
      logger[first ? 'warn' : 'debug']({ err: (err as Error).message }, `${this.name}: ${(err as { slug: string }).slug.replace('_', ' ')}; retrying`);
    } else {
      logger[first ? 'error' : 'debug']({ err }, `${this.name}: pass failed; retrying`);
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.listening().catch((err) => logger.warn({ err: (err as Error).message }, `${this.name}: LISTEN failed; polling`));
      const woken = this.woken;
      this.woken = false;
      const started = performance.now();
      let idle = false;
      try {
        idle = (await this.tick()) === false;
        if (this.failing > 0) logger.info({ failedPasses: this.failing }, `${this.name}: passes succeed again`);
        this.failing = 0;
      } catch (err) {
        if (!this.stopped) this.logFailure(err);
      }
      // Liveness: the loop turned (a pass that never returns stops these marks).
      markProgress(this.name);
      const took = performance.now() - started;
      if (typeof this.every === 'function') {
        await this.sleep(Math.max(0, this.every(took)));
        continue;
      }
      const gap = woken ? this.gapMs - took : 0;
      if (gap > 0 && !this.stopped) await new Promise((resolve) => setTimeout(resolve, gap));
      this.idleWaitMs = idle && !woken && this.idleMaxMs > this.every ? idleWaitAfter(Math.max(this.every, this.idleWaitMs), this.every, this.idleMaxMs) : 0;
      await this.sleep(Math.max(0, (this.idleWaitMs || this.every) - Math.max(0, gap)));
    }
  }
}
