/** batch.items, pure: each entry decided as batch.item decides it alone (cancelled not started, repeats change nothing). */
import { stepBatchItem, stepBatchItems } from '../../services/domain/batches/handlers';
import { queuedBatch, type Batch } from '../../services/domain/batches/rules';
import type { StateView } from '../../services/domain/outcome';

const spec = (receiver: string) => ({ receiver, resource: 'energy' as const, amount: 10_000, tier: '1h' as const, activate: null, bandwidth: null, bandwidthAmount: null, maxPriceSun: null, clientOrderIdPrefix: null });
const ctx = { network: 'nile' as const, brand: 'test' };
const base = { commandId: 'c1', accountId: 'acc', issuedAt: 1, deadlineAt: null, replyTo: null };

function stateOf(batch: Batch): StateView {
  return { account: () => ({ id: 'acc' }) as never, batches: { byId: (id) => (id === batch.id ? batch : undefined), byKey: () => undefined } };
}

test('start: queued receivers start with their decision, a cancelled one stays cancelled, an unknown one is reported', () => {
  const b = queuedBatch({ id: 'bat_1', accountId: 'acc', batchKey: 'k', clientBatchId: 'k', requestHash: 'h', createdAt: 1 }, ['TA', 'TB', 'TC'].map(spec));
  b.items[1] = { ...b.items[1], progress: 'cancelled' };
  const plan = { kind: 'top-up' as const, amount: 350 };
  const out = stepBatchItems(stateOf(b), { ...base, type: 'batch.items', batchId: 'bat_1', step: 'start', at: 5, entries: [
    { receiver: 'TA', receiverActive: false, bandwidthPlan: plan }, { receiver: 'TB', receiverActive: true }, { receiver: 'TX', receiverActive: true },
  ] } as never, ctx);
  expect(out.kind).toBe('applied');
  if (out.kind !== 'applied') return;
  const items = (out.body as { items: Array<Record<string, unknown>> }).items;
  expect(items.map((i) => i.progress)).toEqual(['started', 'cancelled', null]);
  expect(items[0]).toMatchObject({ receiver_active: false, bandwidth_plan: plan });
  const next = out.effects.batches?.[0] as Batch;
  expect(next.items.map((i) => i.progress)).toEqual(['started', 'cancelled', 'queued']);
  expect(next.items[0]).toMatchObject({ startedAt: 5, receiverActive: false, bandwidthPlan: plan });

  // Same as batch.item for the one receiver.
  const single = stepBatchItem(stateOf(b), { ...base, type: 'batch.item', batchId: 'bat_1', receiver: 'TA', step: 'start', orderIds: [], failure: null, receiverActive: false, bandwidthPlan: plan, at: 5 } as never, ctx);
  expect(single.kind === 'applied' && (single.effects.batches?.[0] as Batch).items[0]).toEqual(next.items[0]);

  // A repeat (another grouping after a restart) keeps the first decision and writes nothing.
  const again = stepBatchItems(stateOf(next), { ...base, type: 'batch.items', batchId: 'bat_1', step: 'start', at: 9, entries: [{ receiver: 'TA', receiverActive: true, bandwidthPlan: null }] } as never, ctx);
  expect(again.kind === 'applied' && again.effects.batches).toBeUndefined();
  expect(again.kind === 'applied' && (again.body as { items: Array<Record<string, unknown>> }).items[0]).toMatchObject({ progress: 'started', receiver_active: false, bandwidth_plan: plan });
});

test('done: started receivers record their orders; queued or done ones are left as they are', () => {
  const b = queuedBatch({ id: 'bat_1', accountId: 'acc', batchKey: 'k', clientBatchId: 'k', requestHash: 'h', createdAt: 1 }, ['TA', 'TB'].map(spec));
  b.items[0] = { ...b.items[0], progress: 'started', receiverActive: true };
  const failure = { code: 4001, slug: 'insufficient_funds', message: 'x' };
  const out = stepBatchItems(stateOf(b), { ...base, type: 'batch.items', batchId: 'bat_1', step: 'done', at: 7, entries: [
    { receiver: 'TA', receiverActive: true, orderIds: ['ord_1'], failure: null, bandwidthOrderId: 'ord_0', bandwidthFailure: null, attempts: 2 },
    { receiver: 'TB', receiverActive: true, orderIds: [], failure },
  ] } as never, ctx);
  expect(out.kind).toBe('applied');
  if (out.kind !== 'applied') return;
  const next = out.effects.batches?.[0] as Batch;
  expect(next.items[0]).toMatchObject({ progress: 'done', orderIds: ['ord_1'], bandwidthOrderId: 'ord_0', attempts: 2, finishedAt: 7, failure: null });
  expect(next.items[1]).toEqual(b.items[1]);
});
