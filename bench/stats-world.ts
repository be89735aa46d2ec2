/**
 * What bench/stats.ts and bench/stats-ab.ts share: their common knobs and the orders they project (one
 * account's BENCH_ORDERS orders over 13 months; two events an order, one order in ten failing).
 */
import { availableParallelism, loadavg } from 'node:os';
import type { OrderEvent } from '../services/domain/order-events';

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const ORDERS = knob('BENCH_ORDERS', 100_000);
export const ROUNDS = knob('BENCH_ROUNDS', 3);
/** Stats reads per round and offset. */
export const REQUESTS = knob('BENCH_REQUESTS', 200);
export const DAY = 86_400_000;
/** The range read: 395 days back from now, clamped to 13 months by the API. */
export const RANGE_MS = 395 * DAY;

/** The machine's state beside each figure: on a shared machine it moves the figures more than the code. */
export const machine = () => `[load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores]`;

/** When the one account's order `n` of ORDERS was created: spread evenly over the 13 months before `now`. */
export const spreadAt = (now: number, n: number) => now - RANGE_MS + Math.floor((n / ORDERS) * (RANGE_MS - DAY));

/** Order `n`'s two events: created, then active (delivered 65,000) or, one in ten, failed and refunded. */
export function orderEvents(id: string, accountId: string, createdAt: number, n: number): [OrderEvent, OrderEvent] {
  const failed = n % 10 === 0;
  const order = {
    id, client_order_id: null, account_id: accountId, batch_id: null, subscription_id: null, resource: 'energy', amount: 65_000n, delivered_amount: null,
    partial: false, tier: '5m', duration_seconds: 300, receiver: `TBenchReceiver${n % 40}`, source: 'api', status: 'allocating', confirm_status: 'unconfirmed',
    price_sun_per_unit: 40n + BigInt(n % 7), pay_amount_sun: 2_600_000n, activate_amount_sun: 0n, total_amount_sun: 2_600_000n, refunded_amount_sun: 0n,
    delegate_hash: null, delegate_hashes: [], delegated_at: null, reclaim_hash: null, reclaimed_at: null, expires_at: null,
    activation: { performed: false, hash: null, amount_sun: 0n }, memo: null, created_at: new Date(createdAt).toISOString(), updated_at: new Date(createdAt).toISOString(), failure: null,
  };
  const after = failed
    ? { ...order, status: 'failed', confirm_status: 'confirm_failed', refunded_amount_sun: 2_600_000n, failure: { code: 5002, slug: 'delegation_failed', message: 'x', at: order.created_at } }
    : { ...order, status: 'active', confirm_status: 'confirmed', delivered_amount: 65_000n, delegate_hash: `h${id}`, delegate_hashes: [`h${id}`] };
  return [
    { eventId: `evt_${id}_0`, type: 'order.created', accountId, occurredAt: createdAt, order },
    { eventId: `evt_${id}_1`, type: failed ? 'order.failed' : 'order.active', accountId, occurredAt: createdAt + 30_000, order: after },
  ] as [OrderEvent, OrderEvent];
}
