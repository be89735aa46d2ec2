/**
 * Synchronous delivery (spec section 3, the normal case of POST /v1/orders): after the processor accepted
 * the order, the API waits up to ORDER_SYNC_WAIT_MS (real ms) for the broadcaster to sign and broadcast
 * its delegation. Broadcast in time: the answer is `active` with `delegate_hash` (domain/orders/view.ts
 * shownStatus: every read says the same). Not in time: the order as it stands (`allocating`; poll it or wait
 * for `order.confirmed`). Reads only; nothing is written here.
 * The broadcaster reports a broadcast (status `delegated`) only for orders placed here and young enough
 * that an answer may still be waiting (domain/sync-wait.ts: past the processor's deadline plus this wait,
 * none is); other orders go from `allocating` straight to `confirmed`.
 */
import { orderJson } from '../domain/orders/view';
import { type Order } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { orderById } from '../orders/account-reads';
import { ordersById } from '../orders/reads';

/** How often the waiting orders are read (real ms): one query for all of them, however many wait. */
const POLL_MS = 50;

interface Waiter {
  accountId: string;
  orderId: string;
  until: number;
  resolve(order: Order | undefined): void;
}

/**
 * Orders whose POST is waiting for their broadcast. One loop reads all of them every POLL_MS, so a burst
 * of waiting requests costs one query per tick, not one per request.
 *
 * The wait is a courtesy, worth its time only while the broadcaster keeps up. Once a wait ran out with its
 * order still `allocating` (the broadcaster is behind), new answers do not wait: they would say
 * `allocating` anyway, a whole ORDER_SYNC_WAIT_MS later, and under load those waits were what bounded the
 * orders answered per second (a client with N requests in flight got N per wait). One wait at a time goes
 * on as a probe; the first that sees its order broadcast in time lets answers wait again. At most
 * `maxWaiting` answers wait at once, so a burst does not hold thousands of answers before the first wait
 * has run out.
 */
export class BroadcastWatch {
  private readonly waiters = new Set<Waiter>();
  private running = false;
  private behind = false;

  constructor(private readonly pool: Pool, private readonly maxWaiting: number) {}

  /** Whether a new answer waits for its broadcast now. */
  admits(): boolean {
    return this.waiters.size < (this.behind ? 1 : this.maxWaiting);
  }

  /** The order once it left `allocating`, or as it stands when `waitMs` ran out (undefined: not readable). */
  wait(accountId: string, orderId: string, waitMs: number): Promise<Order | undefined> {
    return new Promise((resolve) => {
      this.waiters.add({ accountId, orderId, until: Date.now() + waitMs, resolve });
      if (!this.running) void this.loop();
    });
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.waiters.size > 0) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        const batch = [...this.waiters];
        let found: Map<string, Order>;
        try {
          found = await ordersById(this.pool, batch.map((w) => w.orderId));
        } catch (err) {
          // The wait is a courtesy: on a failed read every waiter answers what the processor said.
          logger.warn({ err }, 'synchronous delivery: reading the waiting orders failed');
          for (const w of batch) this.settle(w, undefined);
          continue;
        }
        const now = Date.now();
        for (const w of batch) {
          const order = found.get(w.orderId);
          const mine = order && order.accountId === w.accountId ? order : undefined;
          if ((mine && mine.status !== 'allocating') || now + POLL_MS > w.until) this.settle(w, mine);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private settle(w: Waiter, order: Order | undefined): void {
    this.behind = !order || order.status === 'allocating';
    this.waiters.delete(w);
    w.resolve(order);
  }
}

/**
 * The answer to POST /v1/orders given the processor's result: a new order waits for its broadcast (when
 * the watch admits a wait; otherwise the processor's answer, `allocating`, at once); a repeat (idempotent
 * 200, or the Idempotency-Key's original 201) answers the order's current state.
 */
export async function placedOrderAnswer(
  pool: Pool, watch: BroadcastWatch, accountId: string, body: Record<string, unknown>, waitMs: number,
): Promise<Record<string, unknown>> {
  const id = String(body.id);
  if (body.status === 'allocating' && waitMs > 0 && !watch.admits()) return body;
  const order = body.status === 'allocating' && waitMs > 0 ? await watch.wait(accountId, id, waitMs) : await orderById(pool, accountId, id);
  return order ? orderJson(order) : body;
}
