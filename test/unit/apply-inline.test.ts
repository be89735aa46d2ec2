/**
 * Which follow-ups the processor applies in their parent's slice (services/processor/apply-batch.ts
 * appliesInline): only one whose reads are surely in that slice's state whatever the slicing, so a replay
 * applies it at the same place. The rest go through the log as before.
 */
import { appliesInline } from '../../services/processor/apply-batch';
import type { Command } from '../../services/domain/commands';
import { derivedId } from '../../services/domain/ids';
import { applyCommand } from '../../services/domain/apply';

const meta = { commandId: 'cmd_p', accountId: 'acc_x', issuedAt: 1, deadlineAt: null, replyTo: null };
const close = { ...meta, commandId: 'cmd_c', type: 'order.close', orderId: 'ord_1', step: 'request', reason: 'reclaimed', txs: [], idempotencyKey: null, at: 0, replaces: [] } as Command;
const activate = { ...meta, commandId: 'cmd_a', type: 'order.deliver', orderId: 'ord_1', step: 'activate', txIds: [], at: 0 } as Command;
const parent = { ...meta, type: 'order.settle', orderId: 'ord_1', landedTxIds: [], deliveredAt: 0 } as Command;

test('same account, an order the parent just wrote, no Idempotency-Key: applied in the slice', () => {
  expect(appliesInline(parent, [{ id: 'ord_1' }], activate as never)).toBe(true);
  expect(appliesInline(parent, [{ id: 'ord_1' }], close as never)).toBe(true);
});

test('an order the parent did not write (a subscription ending), another account, or a key to look up: through the log', () => {
  expect(appliesInline(parent, [], activate as never)).toBe(false);
  expect(appliesInline(parent, [{ id: 'ord_2' }], close as never)).toBe(false);
  expect(appliesInline(parent, [{ id: 'ord_1' }], { ...activate, accountId: 'acc_y' } as never)).toBe(false);
  expect(appliesInline(parent, [{ id: 'ord_1' }], { ...close, idempotencyKey: 'k' } as never)).toBe(false);
  const created = { ...meta, type: 'account.create', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null } as Command;
  expect(appliesInline(parent, [{ id: 'ord_1' }], created as never)).toBe(false);
});

test("a settlement's follow-up is for the order it wrote, on its account: the one the processor folds", () => {
  const order = {
    id: 'ord_1', accountId: 'acc_x', clientOrderId: null, requestHash: 'h', quoteId: null, resource: 'energy', amount: 65_000, deliveredAmount: null,
    partial: false, tier: '5m', durationSeconds: 300, receiver: 'TR', source: 'api', status: 'allocating', confirmStatus: 'unconfirmed',
    priceSunPerUnit: 40n, paySun: 2_600_000n, activateSun: 0n, totalSun: 2_600_000n, refundedSun: 0n, supplier: 'pool', ratio: null,
    allocations: [{ kind: 'delegate', from: 'TP', amount: 65_000, sun: 1n, txId: 'd1', signedTx: '{}', landed: null }], delegatedAt: null,
    expiresAt: null, closeReason: null, closeRequestedAt: null, undelegations: [], reclaimHash: null, reclaimedAt: null, memo: null, failure: null,
    createdAt: 0, updatedAt: 0, batchId: null, subscriptionId: null,
  };
  const account = { id: 'acc_x', balanceSun: 10_000_000n, balanceUsdt: 0n, reservedSun: 2_600_000n, totals: { spentSun: 0n, refundedSun: 0n, energyDelegated: 0n, ordersCreated: 1 } };
  const view = { byId: (id: string) => (id === 'ord_1' ? order : undefined), byClientId: () => undefined, byQuote: () => undefined, idempotency: () => undefined };
  const settle = { ...parent, landedTxIds: ['d1'], deliveredAt: 5_000 } as Command;
  const outcome = applyCommand({ account: () => account as never, orders: view as never }, settle as never, { network: 'nile', brand: 'energy' });
  if (outcome.kind !== 'applied') throw new Error('settle rejected');
  const [followUp] = outcome.effects.followUps;
  expect(followUp).toMatchObject({ type: 'order.deliver', step: 'activate', commandId: derivedId('command', 'order-activate', 'ord_1') });
  expect(appliesInline(settle, outcome.effects.orders ?? [], followUp as never)).toBe(true);
});
