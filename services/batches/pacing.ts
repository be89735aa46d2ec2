/**
 * The batch executor's pacing: it places an order only while the delivery path (broadcaster, confirmer)
 * keeps up, so an order it places is signed, broadcast and confirmed well inside ORDER_WAIT_WINDOW_MS
 * instead of failing at the window (5004 "no stake", 5002 "not confirmed") for the service's own slowness.
 * Two gates, read from the orders awaiting delivery across the service (every source, since they share
 * the broadcaster): fewer than BATCH_MAX_OPEN_ORDERS of them, and the oldest younger than a third of the
 * wait window (the path is behind: let it catch up first). A receiver waiting here is still `processing`;
 * nothing is charged until its order is placed.
 */
import type { Clock } from '../platform/clock';
import type { Pool } from '../platform/db/pool';

/** What the gates read: orders awaiting delivery and when the oldest was placed (clock ms). */
export interface OpenOrders {
  count: number;
  oldestAt: number | null;
}

export async function openOrders(pool: Pick<Pool, 'query'>): Promise<OpenOrders> {
  // orders_allocating indexes exactly these statuses by created_at.
  const { rows } = await pool.query("SELECT count(*)::int AS n, min(created_at) AS oldest FROM orders WHERE status IN ('allocating', 'delegated')");
  return { count: rows[0].n, oldestAt: rows[0].oldest === null ? null : rows[0].oldest.getTime() };
}

export interface PacerOptions {
  read: () => Promise<OpenOrders>;
  clock: Clock;
  maxOpen: number;
  waitWindowMs: number;
  /** Real ms between reads (and between checks while waiting). */
  everyMs: number;
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

  constructor(private readonly o: PacerOptions) {}

  /** Waits for a slot (false when `stopped` first); release it once the order command has its answer. */
  async acquire(stopped: () => boolean): Promise<boolean> {
    for (;;) {
      if (stopped()) return false;
      await this.fresh();
      if (mayPlace(this.open, this.placing, this.o.clock.now(), this.o)) {
        this.placing += 1;
        return true;
      }
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
      this.open = open;
      this.readAt = Date.now();
    }).finally(() => (this.reading = undefined));
    await this.reading;
  }
}
