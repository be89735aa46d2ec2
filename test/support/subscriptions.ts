/**
 * Subscriptions test kit: a delivery stack (own devnet, chain roles in-process) with the subscription
 * watcher running in-process on the given clock (default the stack's), stopped before the stack, with the
 * ledger invariants checked on the way down.
 */
import type { Clock } from '../../services/platform/clock';
import { startSubscriptionWatcher } from '../../services/subscriptions/watcher';
import { assertLedgerInvariants } from './ledger-invariants';
import { startDeliveryStack, type OrderStack } from './orders';

export async function startSubscriptionStack(label: string, orderPrices: string, watcherClock?: (stack: OrderStack) => Clock): Promise<OrderStack> {
  const stack = await startDeliveryStack(label, 1, { ORDER_PRICES: orderPrices });
  const { rt } = stack;
  const clock = watcherClock?.(stack) ?? rt.clock;
  const watcher = await startSubscriptionWatcher({ cfg: rt.cfg, pool: rt.pool, bus: stack.bus, clock, reader: rt.chain.reader, prices: rt.prices });
  return {
    ...stack,
    stop: async () => {
      await watcher.stop();
      await assertLedgerInvariants(rt.pool);
      await stack.stop();
    },
  };
}
