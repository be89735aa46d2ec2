/**
 * Whom a broadcast mark serves. POST /v1/orders answers `active` with the delegation's hash when the
 * order leaves `allocating` within ORDER_SYNC_WAIT_MS (services/api/sync-delivery.ts); the broadcaster marks
 * a set it sends ahead `broadcast` (applied as `delegated`, the processor then telling the waiting API)
 * only for that answer. Every other order (a batch's, a subscription's, a bot's, an API order whose wait is
 * over) goes `allocating` -> `confirmed` -> `active` without it. The spec's state machine allows
 * `allocating` -> `confirmed`; no order event announces `delegated`, and `order.settle` sets
 * `delegated_at` itself. Pure.
 */
import type { Order, OrderSource } from './orders/rules';

/** Sources placed through POST /v1/orders (an API key, or the dashboard's session): their answer may wait. */
const answeredAfterWait: ReadonlySet<OrderSource> = new Set(['api', 'dashboard']);

/**
 * Real ms added to the bound below: the command bus's 1 s grace after a command's deadline, the reads
 * between the processor's answer and the start of the wait, and clocks of different hosts.
 */
export const SYNC_WAIT_SLACK_MS = 3_000;

/**
 * Real ms after an order's creation (its order.create's issuedAt) after which no answer still waits for it.
 * The processor refuses an order.create past its deadline (issuedAt + COMMAND_TIMEOUT_MS), so the API has
 * the order by then (plus the slack), and its wait lasts ORDER_SYNC_WAIT_MS from there. 0 when answers
 * never wait. A bound, not an estimate: an order marked past it reads `active` before it is verified with
 * nobody waiting, one not marked inside it costs a synchronous answer (`allocating` instead of `active`).
 */
export function syncWaitHorizonMs(commandTimeoutRealMs: number, syncWaitMs: number): number {
  return syncWaitMs === 0 ? 0 : commandTimeoutRealMs + syncWaitMs + SYNC_WAIT_SLACK_MS;
}

/** Whether a POST /v1/orders answer may be waiting for this order's broadcast `realMsSinceCreated` after its creation. */
export function mayAwaitBroadcast(order: Pick<Order, 'source'>, realMsSinceCreated: number, horizonMs: number): boolean {
  return horizonMs > 0 && answeredAfterWait.has(order.source) && realMsSinceCreated <= horizonMs;
}
