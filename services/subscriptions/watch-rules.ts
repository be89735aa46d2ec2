/**
 * The watcher's pure decisions. A receiver's free resource falls only through transactions that touch it
 * (it spends energy or bandwidth as the owner of a transaction, or a delegation to it is withdrawn), and
 * used resource only recovers with time: so after a block, only the receivers its transactions name can
 * have crossed below a threshold, and those are the only ones read again.
 */
import { derivedId } from '../domain/ids';
import type { Order } from '../domain/orders/rules';
import type { PriceTable } from '../domain/pricing';
import type { Block } from '../chain/reads';
import { refillInFlight, suspensionCleared, type Subscription } from '../domain/subscriptions/rules';

/** Free energy and bandwidth of one receiver, as `getaccountresource` reports them (limit minus used). */
export interface FreeResources {
  energy: number;
  bandwidth: number;
}

/** java-tron AccountResourceMessage: absent fields are zero. */
export function freeOf(raw: Record<string, unknown>): FreeResources {
  const n = (k: string) => Number(raw[k] ?? 0);
  return {
    energy: Math.max(0, n('EnergyLimit') - n('EnergyUsed')),
    bandwidth: Math.max(0, n('freeNetLimit') - n('freeNetUsed')) + Math.max(0, n('NetLimit') - n('NetUsed')),
  };
}

/** Every address a block's transactions name (owner, transfer target, delegation receiver). */
export function touchedBy(block: Block): Set<string> {
  const out = new Set<string>();
  for (const tx of block.transactions) for (const a of [tx.owner, tx.to, tx.receiver]) if (a) out.add(a);
  return out;
}

export interface RefillPrice {
  priceSunPerUnit: bigint;
  paySun: bigint;
  durationSeconds: number;
}

/** The refill's price in force (the tier's row); null when the tier is not sold now. */
export function refillPrice(table: PriceTable, sub: Subscription): RefillPrice | null {
  const row = table.rows.find((r) => r.resource === sub.resource && r.tier === sub.tier && r.available);
  if (!row) return null;
  return { priceSunPerUnit: row.price_sun_per_unit, paySun: row.price_sun_per_unit * BigInt(sub.amount), durationSeconds: row.duration_seconds };
}

export type WatchAction = { kind: 'refill'; commandId: string; free: number } | { kind: 'resume'; commandId: string } | null;

/**
 * What one subscription needs now. Command ids derive from the subscription's state as read (and the last
 * order's status), so the same state read again (a restarted watcher) yields the same command: one refill.
 */
export function watchAction(
  sub: Subscription, free: FreeResources | undefined, lastOrder: Order | undefined, price: RefillPrice | null, availableSun: bigint, now: number,
): WatchAction {
  if (sub.kind !== 'refill' || price === null) return null;
  if (sub.status === 'suspended') {
    if (!suspensionCleared(sub, now, price.paySun, availableSun)) return null;
    return { kind: 'resume', commandId: derivedId('command', 'sub-resume', sub.id, sub.updatedAt, sub.reason ?? '-', now - (now % 86_400_000), availableSun.toString()) };
  }
  if (sub.status !== 'active' || free === undefined || sub.thresholdAmount === null) return null;
  const available = sub.resource === 'energy' ? free.energy : free.bandwidth;
  if (available >= sub.thresholdAmount || refillInFlight(lastOrder)) return null;
  return {
    kind: 'refill', free: available,
    commandId: derivedId('command', 'sub-refill', sub.id, sub.updatedAt, sub.lastOrderId ?? '-', lastOrder?.status ?? '-'),
  };
}

export type PlanAction = { kind: 'charge'; commandId: string; billingAt: number } | { kind: 'reserve_exhausted'; commandId: string; orderId: string } | null;

/** A plan's next day due (billed in advance, at next_billing_at), or its day undeliverable by the pool. */
export function planAction(sub: Subscription, lastOrder: Order | undefined, now: number): PlanAction {
  if (sub.kind !== 'plan' || sub.status !== 'active') return null;
  if (lastOrder?.status === 'failed') return { kind: 'reserve_exhausted', orderId: lastOrder.id, commandId: derivedId('command', 'sub-reserve', sub.id, lastOrder.id) };
  if (sub.nextBillingAt === null || now < sub.nextBillingAt) return null;
  return { kind: 'charge', billingAt: sub.nextBillingAt, commandId: derivedId('command', 'sub-charge', sub.id, sub.nextBillingAt) };
}
