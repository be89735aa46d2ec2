/**
 * heldStake: the stake one order counts toward its receiver in order_stake (services/domain/orders/rules.ts). The
 * sum over all orders is checked against the database query it stands for in
 * test/integration/orders/open-stake.test.ts; here, each rule of the definition on its own.
 */
import { heldStake, type Allocation, type Order } from '../../services/domain/orders/rules';

const delegate = (from: string, sun: bigint, landed: boolean | null, stranded = false): Allocation =>
  ({ kind: 'delegate', from, amount: 1, sun, txId: `${from}${sun}`, signedTx: '{}', landed, ...(stranded ? { stranded: true as const } : {}) });
const activate: Allocation = { kind: 'activate', from: 'TP1', amount: 0, sun: 1_100_000n, txId: 'act', signedTx: '{}', landed: true };

const order = (over: Partial<Order>): Pick<Order, 'status' | 'resource' | 'reclaimedAt' | 'allocations' | 'receiver'> => ({
  status: 'active', resource: 'energy', reclaimedAt: null, receiver: 'TR',
  allocations: [delegate('TP1', 10n, true), delegate('TP1', 5n, true), delegate('TP2', 7n, false, true), delegate('TP3', 100n, false), delegate('TP4', 1n, null), activate],
  ...over,
});

test('a delivered order holds its landed and stranded delegations, per pool address and resource', () => {
  expect(heldStake(order({}))).toEqual(new Map([['TP1|TR|ENERGY', 15n], ['TP2|TR|ENERGY', 7n]]));
  expect(heldStake(order({ status: 'confirmed', resource: 'bandwidth' }))).toEqual(new Map([['TP1|TR|BANDWIDTH', 15n], ['TP2|TR|BANDWIDTH', 7n]]));
});

test('an order that ended with its money back holds its stake until it is taken back', () => {
  for (const status of ['refunded', 'failed'] as const) {
    expect(heldStake(order({ status })).get('TP1|TR|ENERGY')).toBe(15n);
    expect(heldStake(order({ status, reclaimedAt: 1 })).size).toBe(0);
  }
});

test('orders not delivered, ended, or activations hold nothing', () => {
  for (const status of ['created', 'paid', 'allocating', 'delegated', 'expired', 'reclaimed'] as const) expect(heldStake(order({ status })).size).toBe(0);
  expect(heldStake(order({ resource: 'activation' })).size).toBe(0);
  // A delivered order's reclaimed_at plays no part (its status says whether it holds).
  expect(heldStake(order({ reclaimedAt: 1 })).get('TP1|TR|ENERGY')).toBe(15n);
});
