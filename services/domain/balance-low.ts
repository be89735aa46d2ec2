/**
 * balance.low: raised by whichever command makes an account's available balance cross below its
 * threshold, as part of that command's effects (so a replay raises the same event with the same id).
 */
import { availableSun, type Account } from './account';
import type { Command } from './commands';
import type { DomainEvent } from './events';
import { derivedId } from './ids';

/** The order size the estimate is counted in (spec: "at current price" for 65,000 energy). */
export const ESTIMATE_ENERGY = 65_000n;

export function balanceLowEvent(command: Command, before: Account | undefined, after: Account): DomainEvent<'balance.low'> | null {
  const threshold = after.lowBalanceThresholdSun ?? null;
  if (threshold === null || !before) return null;
  const was = availableSun(before);
  const now = availableSun(after);
  if (!(was >= threshold && now < threshold)) return null;
  const price = command.energyPrice5mSun ?? null;
  const perOrder = price === null ? 0n : price * ESTIMATE_ENERGY;
  return {
    eventId: derivedId('event', command.commandId, 'balance.low', after.id),
    type: 'balance.low',
    accountId: after.id,
    createdAt: command.issuedAt,
    data: {
      balance_sun: now,
      threshold_sun: threshold,
      estimated_orders_remaining: perOrder > 0n ? (now > 0n ? now / perOrder : 0n) : null,
    },
  };
}
