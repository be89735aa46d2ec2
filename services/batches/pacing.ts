/**
 * The batch executor's pacing: it places an order only while the delivery path (broadcaster, confirmer)
 * keeps up, so an order it places is signed, broadcast and confirmed well inside ORDER_WAIT_WINDOW_MS
 * instead of failing at the window (5004 "no stake", 5002 "not confirmed") for the service's own slowness.
 * Two gates, read from the orders awaiting delivery across the service (every source, since they share
 * the broadcaster): fewer of them than the open-order bound, and the oldest younger than a third of the
 * wait window (the path is behind: let it catch up first). A receiver waiting here is still `processing`;
 * nothing is charged until its order is placed.
 *
 * With BATCH_PACE_TARGET_MS set (5,000 by default; 0: the bound is BATCH_MAX_OPEN_ORDERS), the bound follows
 * what the path sustains (Little's law: open orders = delivery rate x time to deliver). It starts at
 * BATCH_MAX_OPEN_ORDERS, its floor; while the bound is what holds the executor back and the
 * oldest open order is younger than BATCH_PACE_TARGET_MS, the path delivers faster than it is fed and the
 * bound grows (at most to CEILING_FACTOR times the floor); once the oldest is older than that, more open
 * orders would only queue, and the bound shrinks back towards the floor (faster than the fixed bound on a
 * quiet machine, slower on one loaded by other work: docs/batches.md, Pacing; figures in bench/README.md,
 * "Figures formerly quoted in code comments").
 */
import type { Clock } from '../platform/clock';
import type { OpenOrders } from '../orders/reads';

export interface PacerOptions {
  read: () => Promise<OpenOrders>;
  clock: Clock;
  /** The open-order bound's floor (and start). */
  maxOpen: number;
  waitWindowMs: number;
  /** Real ms between reads (and between checks while waiting). */
  everyMs: number;
  /** Age of the oldest open order (clock ms) under which the bound may grow; none: the bound stays `maxOpen`. */
  targetAgeMs?: number;
}

/** The bound grows to at most this many times `maxOpen`. */
export const CEILING_FACTOR = 8;
/** While the path keeps up and the bound holds the executor back: the bound's growth per real second. */
const GROW_PER_SEC = 0.25;
/** While the oldest open order is older than the target: the bound's shrinking per real second. */
const SHRINK_PER_SEC = 0.5;

/**
 * The open-order bound after `dtMs` real ms with these open orders (pure, for tests): grows while
 * `saturated` (the bound is what holds placing back) and the oldest is younger than the target, shrinks
 * while it is older, stays between `maxOpen` and CEILING_FACTOR times it.
 */
export function nextBound(bound: number, open: OpenOrders, saturated: boolean, now: number, dtMs: number, o: Pick<PacerOptions, 'maxOpen' | 'waitWindowMs' | 'targetAgeMs'>): number {
  if (o.targetAgeMs === undefined) return o.maxOpen;
  // Never past a sixth of the window whatever is configured: the hard gate is at a third.
  const target = Math.min(o.targetAgeMs, o.waitWindowMs / 6);
  const age = open.oldestAt === null ? 0 : now - open.oldestAt;
  const dt = Math.min(dtMs, 1000) / 1000;
  let next = bound;
  if (age > target) next = bound * (1 - SHRINK_PER_SEC * dt);
  else if (saturated) next = bound * (1 + GROW_PER_SEC * dt);
  return Math.min(o.maxOpen * CEILING_FACTOR, Math.max(o.maxOpen, next));
}

/** Whether one more order may be placed now (pure, for tests). */
export function mayPlace(open: OpenOrders, placing: number, now: number, o: Pick<PacerOptions, 'maxOpen' | 'waitWindowMs'>): boolean {
  if (open.count + placing >= o.maxOpen) return false;
  return open.oldestAt === null || now - open.oldestAt < o.waitWindowMs / 3;
}

export class OrderPacer {
  private open: OpenOrders = { count: 0, oldestAt: null };
  private readAt = -Infinity;
  private reading: Promise<void> | undefined;
  /** Slots taken and not yet released: order commands on their way (not in `open` yet, or counted twice: safe). */
  private placing = 0;
  /** The open-order bound now (see nextBound). */
  private bound: number;
  /** Whether a receiver was held back by the bound since the last read. */
  private heldByBound = false;

  constructor(private readonly o: PacerOptions) {
    this.bound = o.maxOpen;
  }

  /** The open-order bound now (rounded down). */
  get limit(): number {
    return Math.floor(this.bound);
  }

  /** Waits for a slot (false when `stopped` first); release it once the order command has its answer. */
  async acquire(stopped: () => boolean): Promise<boolean> {
    for (;;) {
      if (stopped()) return false;
      await this.fresh();
      const gates = { maxOpen: this.limit, waitWindowMs: this.o.waitWindowMs };
      if (mayPlace(this.open, this.placing, this.o.clock.now(), gates)) {
        this.placing += 1;
        return true;
      }
      if (this.open.count + this.placing >= gates.maxOpen) this.heldByBound = true;
      await new Promise((r) => setTimeout(r, this.o.everyMs));
    }
  }

  release(): void {
    this.placing -= 1;
  }

  /** One read per `everyMs` whoever asks (every waiting receiver shares it). */
  private async fresh(): Promise<void> {
    if (Date.now() - this.readAt < this.o.everyMs) return;
    this.reading ??= this.o.read().then((open) => {
      const at = Date.now();
      // The first read has nothing to compare with (readAt -Infinity): dt 0 leaves the bound as it is.
      const dt = Number.isFinite(this.readAt) ? at - this.readAt : 0;
      this.bound = nextBound(this.bound, open, this.heldByBound, this.o.clock.now(), dt, this.o);
      this.heldByBound = false;
      this.open = open;
      this.readAt = at;
    }).finally(() => (this.reading = undefined));
    await this.reading;
  }
}
