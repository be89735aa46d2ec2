/**
 * Subscriptions test kit: a delivery stack (own devnet, chain roles in-process) with the subscription
 * watcher running in-process on the given clock (default the stack's), stopped before the stack, with the
 * ledger invariants checked on the way down; and what the subscription tests read and wait on.
 */
import { TronWeb } from 'tronweb';
import type { Clock } from '../../services/platform/clock';
import { startSubscriptionWatcher } from '../../services/subscriptions/watcher';
import { newWallet, type Customer } from './identity';
import { assertLedgerInvariants } from './ledger-invariants';
import { orderCall, startDeliveryStack, type OrderStack } from './orders';
import { readTopic } from './topic-reader';
import { eventually } from './world';

// What every subscription test file calls besides the kit below, from one import.
export { fundedCustomer, isDelivered, orderCall, orderUntil } from './orders';
export { eventually } from './world';
export type { Customer } from './identity';

export interface SubscriptionStack extends OrderStack {
  /** A reader of the stack's devnet. */
  tronWeb: TronWeb;
}

/** The price row every subscription test sells refills at: energy for 1h at 60 sun a unit. */
const ENERGY_1H = { resource: 'energy', tier: '1h', price_sun_per_unit: 60, min_amount: 10_000, max_amount: 1_000_000, available: true };

/** ORDER_PRICES of the energy 1h row followed by `more`. */
export function subscriptionPrices(...more: object[]): string {
  return JSON.stringify([ENERGY_1H, ...more]);
}

export async function startSubscriptionStack(label: string, orderPrices: string, watcherClock?: (stack: OrderStack) => Clock): Promise<SubscriptionStack> {
  const stack = await startDeliveryStack(label, 1, { ORDER_PRICES: orderPrices });
  const { rt } = stack;
  const clock = watcherClock?.(stack) ?? rt.clock;
  const watcher = await startSubscriptionWatcher({ cfg: rt.cfg, pool: rt.pool, bus: stack.bus, clock, reader: rt.chain.reader, prices: rt.prices });
  return {
    ...stack,
    tronWeb: new TronWeb({ fullHost: stack.devnet.url }),
    stop: async () => {
      await watcher.stop();
      await assertLedgerInvariants(rt.pool);
      await stack.stop();
    },
  };
}

/**
 * The subscription stack of one test file: started in its beforeAll, stopped in its afterAll (ledger
 * invariants checked). The answer stands for the stack once started (every property read is the started
 * stack's), so tests use it like the stack itself.
 */
export function useSubscriptionStack(label: string, orderPrices: string, watcherClock?: (stack: OrderStack) => Clock): SubscriptionStack {
  let started: SubscriptionStack | undefined;
  beforeAll(async () => {
    started = await startSubscriptionStack(label, orderPrices, watcherClock);
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as SubscriptionStack, {
    get: (_target, key) => {
      if (!started) throw new Error(`the ${label} subscription stack is not started (used outside a test?)`);
      return started[key as keyof SubscriptionStack];
    },
  });
}

/** GET /v1/subscriptions/:id as `customer` (status and body). */
export function getSubscription(stack: OrderStack, customer: Customer, id: string): ReturnType<typeof orderCall> {
  return orderCall(stack, customer, 'GET', `/v1/subscriptions/${id}`);
}

/** The address's energy as getaccountresource reports it: the limit (delegated and staked) and what is free of it. */
export async function energyOf(stack: SubscriptionStack, address: string): Promise<{ limit: number; free: number }> {
  const r: any = await stack.tronWeb.trx.getAccountResources(address);
  const limit = Number(r.EnergyLimit ?? 0);
  return { limit, free: limit - Number(r.EnergyUsed ?? 0) };
}

/** The devnet's USDT contract as the wallet of `privateKey` (its transfers burn the wallet's energy). */
export async function usdtAs(stack: SubscriptionStack, privateKey: string): Promise<any> {
  return new TronWeb({ fullHost: stack.devnet.url, privateKey }).contract().at(stack.devnet.accounts.usdt_contract);
}

/** A receiver activated on chain by the devnet faucet: TRX for bandwidth and, unless 0, USDT to spend energy on. */
export async function fundedReceiver(
  stack: SubscriptionStack, funds: { trxSun: number; usdt: number } = { trxSun: 100_000_000, usdt: 100_000_000 },
): Promise<{ address: string; privateKey: string }> {
  const w = await newWallet();
  const body = { to: w.address, trx_sun: funds.trxSun, ...(funds.usdt > 0 ? { usdt: funds.usdt } : {}) };
  const res = await fetch(`${stack.devnet.url}/admin/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`/admin/faucet: ${res.status} ${await res.text()}`);
  await eventually(async () => (await stack.tronWeb.trx.getBalance(w.address)) > 0, 30_000, 'receiver funded');
  return w;
}

/** The subscription.* events (of `type` when given) of one subscription on the world's account-events topic. */
export async function subscriptionEvents(stack: OrderStack, subscriptionId: string, type?: string): Promise<any[]> {
  const records = await readTopic<any>(stack.rt, 'accountEvents');
  return records.map((r) => r.value).filter((e) => String(e.type).startsWith('subscription.') && (type === undefined || e.type === type) && e.data?.subscription_id === subscriptionId);
}

/** Waits until the subscription's last order is set and is not `previous`; returns its id. */
export function nextSubscriptionOrder(stack: OrderStack, customer: Customer, subscriptionId: string, what: string, previous: string | null = null): Promise<string> {
  return eventually(async () => {
    const s = (await getSubscription(stack, customer, subscriptionId)).body;
    return s.last_order_id !== null && s.last_order_id !== previous ? (s.last_order_id as string) : undefined;
  }, 30_000, what);
}
