/**
 * Orders test kit: a devnet of the test's own (fast blocks) and an identity stack whose TRON_FULL_HOST
 * points at it, plus funding through a support adjustment and a signed POST /v1/orders.
 */
import { TronWeb } from 'tronweb';
import { replayAndVerify } from '../../services/ops/replay';
import type { Pool } from '../../services/platform/db/pool';
import { assertReconciled, eventually, templateReplay } from './world';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { call, signedHeaders, signUp, startIdentityStack, type Customer, type IdentityStack, type Reply } from './identity';
import { unpublishedCount } from '../../services/relay/relay';

export interface OrderStack extends IdentityStack {
  devnet: Devnet;
}

export async function startOrderStack(label: string, overrides: Record<string, string> = {}, devnetEnv: Record<string, string> = {}): Promise<OrderStack> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300', ...devnetEnv });
  const stack = await startIdentityStack(label, { TRON_FULL_HOST: devnet.url, ...overrides });
  return {
    ...stack,
    devnet,
    stop: async () => {
      // The chain must hold exactly what the orders say (ops reconcile clean), and the world's log must
      // rebuild its database exactly (orders, idempotency records, journals).
      const reconciled = await assertReconciled(stack.rt).then(() => null, (err: Error) => err);
      const report = await replayAndVerify(stack.rt, templateReplay);
      const differing = report.tables.filter((t) => t.differences.length > 0);
      await stack.stop();
      await devnet.stop();
      if (differing.length > 0) throw new Error(`replay differs from the database: ${JSON.stringify(differing).slice(0, 2000)}`);
      if (reconciled) throw reconciled;
    },
  };
}

/** A signed-up customer with `sun` credited by a support adjustment (0: unfunded). Any stack with an API and a bus. */
export async function fundedCustomer(stack: Pick<IdentityStack, 'base' | 'bus'>, sun: bigint): Promise<Customer> {
  const customer = await signUp(stack.base);
  if (sun > 0n) {
    const result = await stack.bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: sun, memo: 'test funding' });
    if (result.outcome !== 'applied') throw new Error(`funding failed: ${JSON.stringify(result)}`);
  }
  return customer;
}

const lastSigned = new Map<string, number>();

/**
 * A signed API call stamped with the stack's clock (scaled in delivery tests, as the API checks it), in
 * milliseconds. A POST, PATCH or DELETE signature is single use (the same one twice is a replay, 1002): a
 * repeat of the same request waits for the clock's next millisecond. GET and HEAD may repeat (polling).
 */
export async function orderCall(stack: Pick<IdentityStack, 'base' | 'rt'>, customer: Customer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const request = `${customer.key.id} ${method} ${path} ${raw}`;
  let timestamp = Math.floor(stack.rt.clock.now());
  if (method !== 'GET' && method !== 'HEAD') {
    while (lastSigned.get(request) === timestamp) {
      await new Promise((r) => setTimeout(r, 1));
      timestamp = Math.floor(stack.rt.clock.now());
    }
    lastSigned.set(request, timestamp);
  }
  return call(stack.base, method, path, { raw: body === undefined ? undefined : raw, headers: { ...signedHeaders(customer.key, method, path, raw, timestamp), ...headers } });
}

export function postOrder(stack: IdentityStack, customer: Customer, body: Record<string, unknown>, idempotencyKey?: string): Promise<Reply> {
  return orderCall(stack, customer, 'POST', '/v1/orders', body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
}

/**
 * An order stack with the chain roles running in-process (broadcaster, confirmer, scheduler) on a scaled
 * clock shared through CLOCK_ORIGIN_MS: the 5m tier lasts 300 s / scale.
 */
export async function startDeliveryStack(label: string, scale: number, overrides: Record<string, string> = {}, devnetEnv: Record<string, string> = {}): Promise<OrderStack> {
  const stack = await startOrderStack(label, {
    CLOCK_SCALE: String(scale), CLOCK_ORIGIN_MS: String(Date.now()), CHAIN_POLL_MS: '100', ORDER_WAIT_WINDOW_MS: String(10_000 * scale),
    // Deadlines are clock ms too: several seconds of real time to answer.
    COMMAND_TIMEOUT_MS: String(Math.min(120_000, 10_000 * scale)), ...overrides,
  }, devnetEnv);
  const { startRoles } = await import('../../services/roles');
  const roles = await startRoles(stack.rt, ['broadcaster', 'confirmer', 'scheduler']);
  return {
    ...stack,
    stop: async () => {
      await Promise.allSettled(roles.map((r) => r.stop()));
      await stack.stop();
    },
  };
}

/**
 * A signed GET of `path` every `intervalMs` until it answers 200 and `done` holds for the body, for at most
 * `timeoutMs`; the error shows `describe` of the last body.
 */
export async function getUntil(
  stack: Pick<IdentityStack, 'base' | 'rt'>, customer: Customer, path: string, done: (body: any) => boolean,
  options: { timeoutMs: number; intervalMs: number; describe?: (body: any) => unknown },
): Promise<any> {
  const until = Date.now() + options.timeoutMs;
  let last: any;
  while (Date.now() < until) {
    const reply = await orderCall(stack, customer, 'GET', path);
    last = reply.body;
    if (reply.status === 200 && done(last)) return last;
    await new Promise((r) => setTimeout(r, options.intervalMs));
  }
  throw new Error(`${path} did not get there in time; last seen ${JSON.stringify(options.describe ? options.describe(last) : last)}`);
}

/** GET /v1/orders/{id} until `done` holds for it. */
export function orderUntil(stack: Pick<IdentityStack, 'base' | 'rt'>, customer: Customer, orderId: string, done: (o: any) => boolean, timeoutMs = 30_000): Promise<any> {
  return getUntil(stack, customer, `/v1/orders/${orderId}`, done, { timeoutMs, intervalMs: 200 });
}

/** An order whose energy reached its receiver (active, or past it: confirmed). */
/** Delivered and verified: `active` (or `confirmed`) with the chain's confirmation (a broadcast delegation reads `active`, unconfirmed). */
export const isDelivered = (o: { status: string; confirm_status?: string }): boolean =>
  (o.status === 'active' || o.status === 'confirmed') && (o.confirm_status === undefined || o.confirm_status === 'confirmed');

/** The stake delegated to `receiver` on chain for energy, by delegating address (base58). */
export async function chainDelegations(tronWeb: TronWeb, receiver: string): Promise<Map<string, bigint>> {
  const onChain = new Map<string, bigint>();
  const index: any = await tronWeb.trx.getDelegatedResourceAccountIndexV2(receiver);
  for (const from of index.fromAccounts ?? []) {
    const res: any = await tronWeb.trx.getDelegatedResourceV2(from, receiver);
    for (const d of res.delegatedResource ?? []) onChain.set(TronWeb.address.fromHex(d.from), BigInt(d.frozen_balance_for_energy ?? 0));
  }
  return onChain;
}

/** What a stored order says the chain holds: its landed delegations summed by delegating address. */
export function landedDelegations(allocations: any[]): Map<string, bigint> {
  const expected = new Map<string, bigint>();
  for (const a of allocations.filter((x) => x.kind === 'delegate' && x.landed)) expected.set(a.from, (expected.get(a.from) ?? 0n) + BigInt(a.sun));
  return expected;
}

/** How many order_charge journals each order has (an order charged twice shows 2). */
export async function chargesByOrder(pool: Pool): Promise<Map<string, number>> {
  const { rows } = await pool.query("SELECT order_id, count(*)::int AS n FROM journals WHERE kind = 'order_charge' GROUP BY order_id");
  return new Map(rows.map((r: any) => [r.order_id, r.n]));
}

/** Events of the world's account-events topic about one order. */
/**
 * The order's events on account-events, once the relay has published every account event committed so far:
 * an order's row is committed before its events reach the topic, so a read right after the row's state can
 * come before them on a loaded machine.
 */
export async function orderEvents(stack: IdentityStack, orderId: string): Promise<any[]> {
  await eventually(async () => (await unpublishedCount(stack.rt.pool, 'account-events')) === 0 || undefined, 30_000, 'the relay to publish the committed account events');
  const { readTopic } = await import('./topic-reader');
  const records = await readTopic<any>(stack.rt, 'accountEvents');
  return records.map((r) => r.value).filter((e) => e.data?.order_id === orderId);
}

/** A devnet wallet API call with base58 addresses. */
export const chainCall = (stack: OrderStack, p: string, body: Record<string, unknown>) => stack.devnet.post(`/wallet/${p}`, { ...body, visible: true });

/** Energy stake `from` delegates to `to` now (getdelegatedresourcev2, SUN). */
export async function delegatedEnergy(stack: OrderStack, from: string, to: string): Promise<bigint> {
  return ((await chainCall(stack, 'getdelegatedresourcev2', { fromAddress: from, toAddress: to })).delegatedResource ?? [])
    .reduce((s: bigint, d: any) => s + BigInt(d.frozen_balance_for_energy ?? 0), 0n);
}

/** The processor's row of one order. */
export async function orderRow(stack: OrderStack, id: string): Promise<any> {
  return (await stack.rt.pool.query('SELECT * FROM orders WHERE id = $1', [id])).rows[0];
}
