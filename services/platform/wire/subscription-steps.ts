/** A subscription command's body on the wire: its kind, its subscription id and the rest as JSON text. */
import { parseJson, stringifyBigintJson } from '../json';
import type { SubscriptionCommand } from '../../domain/subscriptions/commands';

export interface SubscriptionStepWire {
  kind: string;
  subscription_id: string | null;
  payload: string;
}

export function subscriptionStepToWire(body: SubscriptionCommand): SubscriptionStepWire {
  const { type, ...rest } = body;
  return { kind: type, subscription_id: 'subscriptionId' in body ? body.subscriptionId : null, payload: stringifyBigintJson(rest) };
}

const big = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(v as number | bigint));

export function subscriptionStepFromWire(wire: SubscriptionStepWire): SubscriptionCommand {
  const rest = parseJson(wire.payload) as Record<string, any>;
  for (const part of [rest, rest.changes, rest.plan]) {
    if (!part) continue;
    for (const k of ['maxPriceSun', 'priceSunPerUnit', 'paySun', 'activateSun', 'dailyFeeSun']) if (k in part) part[k] = big(part[k]);
  }
  return { type: wire.kind, ...rest } as SubscriptionCommand;
}
