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
    const s = (await orderCall(stack, customer, 'GET', `/v1/subscriptions/${subscriptionId}`)).body;
    return s.last_order_id !== null && s.last_order_id !== previous ? (s.last_order_id as string) : undefined;
  }, 30_000, what);
}
