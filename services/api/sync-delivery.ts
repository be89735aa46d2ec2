/**
 * Synchronous delivery (spec section 3, the normal case of POST /v1/orders): after the processor accepted
 * the order, the API waits up to ORDER_SYNC_WAIT_MS (real ms) for the broadcaster to sign and broadcast
 * its delegation. Broadcast in time: the answer is `active` with `delegate_hash` (domain/orders/view.ts
 * shownStatus: every read says the same). Not in time: the order as it stands (`allocating`; poll it or wait
 * for `order.confirmed`). Reads only; nothing is written here.
 * The broadcaster marks a set it sends ahead `broadcast` only for orders placed here and young enough that
 * an answer may still be waiting (domain/sync-wait.ts); the processor applies such a set as `delegated` and
 * names the order on the delivery channel after its commit, with its answer, which is what wakes the wait
 * (and what it answers: no read of the order on the way). Other orders go
 * from `allocating` straight to `confirmed`.
 */
import { orderJson } from '../domain/orders/view';
import { type Order } from '../domain/orders/rules';
import type { Pool } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { orderById } from '../orders/account-reads';
import { ordersById } from '../orders/reads';
import type { CommandBus } from '../platform/command-bus';
import type { DeliveryNotice } from '../platform/redis';

/** Real ms an order named delivered is remembered: its answer may start waiting just after the message. */
const REMEMBER_MS = 5_000;

/** A POST /v1/orders answer: the order's JSON view (domain/orders/view.ts orderJson). */
export type OrderAnswer = Record<string, unknown>;

interface Waiter {
  accountId: string;
  orderId: string;
  timer: NodeJS.Timeout;
  resolve(answer: OrderAnswer | undefined): void;
}

/**
 * Orders whose POST is waiting for their broadcast. Nothing polls: the processor names the orders it
 * committed as broadcast on the channel every API process listens on (CommandBus.onDelivered), each with
 * the answer a read would give, and a waiting answer takes it from there; it reads the order only when
 * the notice carries no answer, or once when its wait runs out (as it stands: `allocating` when the
 * broadcast is late). Reads are one query for every answer ready at that moment.
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
  private readonly waiters = new Map<string, Waiter[]>();
  private size = 0;
  private behind = false;
  /** Orders named delivered lately (real ms), with their notice: a wait that starts after its message answers at once. */
  private readonly recent = new Map<string, { at: number; notice: DeliveryNotice }>();
  /** Waiters to read, and whether a read is under way (one at a time: the next takes whatever came meanwhile). */
  private due = new Set<Waiter>();
  private reading = false;

  constructor(private readonly pool: Pool, private readonly maxWaiting: number) {}

  /** Hears the processor's deliveries on the bus's reply connection. */
  listen(bus: Pick<CommandBus, 'onDelivered'>): this {
    bus.onDelivered((notices) => this.delivered(notices));
    return this;
  }

  /** Whether a new answer waits for its broadcast now. */
  admits(): boolean {
    return this.size < (this.behind ? 1 : this.maxWaiting);
  }

  /** The order's answer once it left `allocating`, or as it stands when `waitMs` ran out (undefined: not readable). */
  wait(accountId: string, orderId: string, waitMs: number): Promise<OrderAnswer | undefined> {
    return new Promise((resolve) => {
      const w: Waiter = { accountId, orderId, resolve, timer: setTimeout(() => this.read(w), waitMs) };
      const list = this.waiters.get(orderId) ?? [];
      list.push(w);
      this.waiters.set(orderId, list);
      this.size += 1;
      const seen = this.recent.get(orderId);
      if (seen) this.answer(w, seen.notice);
    });
  }

  /** The processor committed these orders as broadcast. */
  delivered(notices: DeliveryNotice[]): void {
    const now = Date.now();
    for (const [id, { at }] of this.recent) {
      if (now - at <= REMEMBER_MS) break;
      this.recent.delete(id);
    }
    for (const notice of notices) {
      this.recent.delete(notice.orderId);
      this.recent.set(notice.orderId, { at: now, notice });
      for (const w of [...(this.waiters.get(notice.orderId) ?? [])]) this.answer(w, notice);
    }
  }

  /** A waiter's answer from its order's notice; read from PostgreSQL when the notice carries none. */
  private answer(w: Waiter, notice: DeliveryNotice): void {
    if (notice.answer === undefined) return this.read(w);
    this.settle(w, notice.accountId === w.accountId ? notice.answer : undefined);
  }

  private read(w: Waiter): void {
    this.due.add(w);
    if (!this.reading) void this.readDue();
  }

  private async readDue(): Promise<void> {
    this.reading = true;
    try {
      while (this.due.size > 0) {
        const batch = [...this.due];
        this.due = new Set();
        let found: Map<string, Order>;
        try {
          found = await ordersById(this.pool, [...new Set(batch.map((w) => w.orderId))]);
        } catch (err) {
          // The wait is a courtesy: on a failed read every waiter answers what the processor said.
          logger.warn({ err }, 'synchronous delivery: reading the waiting orders failed');
          for (const w of batch) this.settle(w, undefined);
          continue;
        }
        for (const w of batch) {
          const order = found.get(w.orderId);
          this.settle(w, order && order.accountId === w.accountId ? orderJson(order) : undefined);
        }
      }
    } finally {
      this.reading = false;
    }
  }

  private settle(w: Waiter, answer: OrderAnswer | undefined): void {
    const list = this.waiters.get(w.orderId);
    const at = list?.indexOf(w) ?? -1;
    if (at < 0) return;
    list!.splice(at, 1);
    if (list!.length === 0) this.waiters.delete(w.orderId);
    this.size -= 1;
    clearTimeout(w.timer);
    this.behind = !answer || answer.status === 'allocating';
    w.resolve(answer);
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
  if (body.status === 'allocating' && waitMs > 0) return (await watch.wait(accountId, id, waitMs)) ?? body;
  const order = await orderById(pool, accountId, id);
  return order ? orderJson(order) : body;
}
