import { activationStatus, balancedChunks, bandwidthOf, bandwidthPlan, DEFAULT_BANDWIDTH_AMOUNT, batchRequestHash, batchStatus, chargedSun, chunkAmounts, clientOrderIdFor, duplicateReceiver, itemFromStored, itemStatus, mergeItems, specFromStored, storedForm, summaryOf, trackingId, type BatchItem, type ItemOrder } from '../../services/domain/batches/rules';
import { batchStepFromWire, batchStepToWire } from '../../services/platform/wire/batch-steps';
import { batchJson } from '../../services/domain/batches/view';
import { parseOwnJson, stringifyJson } from '../../services/platform/json';

const item = (over: Partial<BatchItem> = {}): BatchItem => ({
  receiver: 'TA', resource: 'energy', amount: 100_000, tier: '5m', activate: null, bandwidth: null, bandwidthAmount: null, maxPriceSun: null, clientOrderIdPrefix: null,
  progress: 'done', orderIds: [], failure: null, receiverActive: true, startedAt: 1, finishedAt: 2, ...over,
});
const order = (over: Partial<ItemOrder> = {}): ItemOrder => ({
  status: 'active', amount: 100_000, deliveredAmount: 100_000, totalSun: 4_000_000n, refundedSun: 0n, activateSun: 0n, allocations: [], resource: 'energy', ...over,
});

test('defaults merge field by field; items override; absent stays null', () => {
  const merged = mergeItems({ resource: 'energy', amount: 65_000, tier: '5m', clientOrderIdPrefix: 'p' }, [{ receiver: 'TA' }, { receiver: 'TB', amount: 10_000, tier: '1h' }]);
  expect(merged[0]).toMatchObject({ receiver: 'TA', amount: 65_000, tier: '5m', clientOrderIdPrefix: 'p', maxPriceSun: null, activate: null });
  expect(merged[1]).toMatchObject({ receiver: 'TB', amount: 10_000, tier: '1h', clientOrderIdPrefix: 'p' });
});

test('duplicates, request hash, tracking and client order ids', () => {
  expect(duplicateReceiver([{ receiver: 'TA' }, { receiver: 'TB' }, { receiver: 'TA' }])).toBe('TA');
  expect(duplicateReceiver([{ receiver: 'TA' }, { receiver: 'TB' }])).toBeNull();
  const a = mergeItems({}, [{ receiver: 'TA', amount: 1, maxPriceSun: 5n }]);
  const b = mergeItems({}, [{ receiver: 'TA', amount: 1, maxPriceSun: 6n }]);
  expect(batchRequestHash('x', a)).toBe(batchRequestHash('x', mergeItems({ maxPriceSun: 5n }, [{ receiver: 'TA', amount: 1 }])));
  expect(batchRequestHash('x', a)).not.toBe(batchRequestHash('x', b));
  expect(trackingId({ id: 'bat_1', clientBatchId: 'cb' }, 'TA')).toBe('cb:TA');
  expect(clientOrderIdFor('pre', 'TA', 0)).toBe('pre-TA');
  expect(clientOrderIdFor('pre', 'TA', 2)).toBe('pre-TA-3');
  expect(clientOrderIdFor(null, 'TA', 0)).toBeNull();
});

test('chunks: full chunks then the rest; the rest raised to the row minimum', () => {
  expect(chunkAmounts(250_000, 100_000)).toEqual([100_000, 100_000, 50_000]);
  expect(chunkAmounts(100_000, 100_000)).toEqual([100_000]);
  expect(balancedChunks(205_000, 10_000, 100_000)).toEqual([100_000, 95_000, 10_000]);
  expect(balancedChunks(205_000, 10_000, 100_000).reduce((a, b) => a + b, 0)).toBe(205_000);
});

test('item status from progress and orders', () => {
  expect(itemStatus(item({ progress: 'queued' }), [])).toBe('queued');
  expect(itemStatus(item({ progress: 'started' }), [])).toBe('processing');
  expect(itemStatus(item({ progress: 'cancelled' }), [])).toBe('cancelled');
  expect(itemStatus(item(), [order({ status: 'allocating', deliveredAmount: null })])).toBe('processing');
  expect(itemStatus(item(), [order()])).toBe('completed');
  expect(itemStatus(item({ amount: 200_000, failure: { code: 4001, slug: 'insufficient_funds', message: '' } }), [order()])).toBe('partial');
  expect(itemStatus(item({ failure: { code: 4001, slug: 'insufficient_funds', message: '' } }), [])).toBe('insufficient_funds');
  expect(itemStatus(item({ failure: { code: 3006, slug: 'price_above_limit', message: '' } }), [])).toBe('failed');
  expect(itemStatus(item(), [order({ status: 'failed', deliveredAmount: null })])).toBe('failed');
  expect(itemStatus(item(), [order({ status: 'confirmed', deliveredAmount: 60_000, partial: true } as never)])).toBe('partial');
});

test('summary and batch status derived from items', () => {
  expect(batchStatus(['queued', 'queued'])).toBe('queued');
  expect(batchStatus(['queued', 'completed'])).toBe('processing');
  expect(batchStatus(['completed', 'cancelled'])).toBe('completed');
  expect(batchStatus(['completed', 'insufficient_funds'])).toBe('partial');
  expect(batchStatus(['failed', 'insufficient_funds'])).toBe('failed');
  expect(batchStatus(['cancelled', 'cancelled'])).toBe('cancelled');
  expect(summaryOf(['completed', 'failed', 'failed'])).toEqual({ total: 3, queued: 0, processing: 0, completed: 1, partial: 0, failed: 2, insufficient_funds: 0, cancelled: 0 });
});

test('charge: what left minus what came back; a failed order charged nothing', () => {
  expect(chargedSun([order({ totalSun: 10n, refundedSun: 3n }), order({ status: 'failed', totalSun: 7n })])).toBe(7n);
});

test('activation status', () => {
  expect(activationStatus(item({ receiverActive: true }), [])).toBe('not_needed');
  const tx = (landed: boolean | null) => ({ kind: 'activate' as const, from: 'T', amount: 0, sun: 1n, txId: 'h', signedTx: '', landed });
  expect(activationStatus(item({ receiverActive: false }), [order({ allocations: [tx(true)] })])).toBe('done');
  expect(activationStatus(item({ receiverActive: false }), [order({ allocations: [tx(null)] })])).toBe('planned');
  expect(activationStatus(item({ receiverActive: false }), [order({ allocations: [tx(false)] })])).toBe('failed');
  expect(activationStatus(item({ receiverActive: false, activate: false, failure: { code: 3004, slug: 'receiver_not_activated', message: '' } }), [])).toBe('skipped');
});

test('bandwidth plan: energy only, option_off, amount_large when chunked, enough or a top-up of bandwidth_amount', () => {
  const spec = { resource: 'energy' as const, amount: 10_000, bandwidth: null, bandwidthAmount: null };
  expect(bandwidthPlan({ ...spec, resource: 'bandwidth' }, 100_000, 0)).toEqual({ kind: 'skip', reason: null });
  expect(bandwidthPlan({ ...spec, bandwidth: false }, 100_000, 0)).toEqual({ kind: 'skip', reason: 'option_off' });
  expect(bandwidthPlan({ ...spec, amount: 100_001 }, 100_000, 0)).toEqual({ kind: 'skip', reason: 'amount_large' });
  expect(bandwidthPlan(spec, 100_000, 600)).toEqual({ kind: 'enough', free: 600 });
  expect(bandwidthPlan(spec, 100_000, DEFAULT_BANDWIDTH_AMOUNT - 1)).toEqual({ kind: 'top-up', amount: DEFAULT_BANDWIDTH_AMOUNT, free: DEFAULT_BANDWIDTH_AMOUNT - 1 });
  expect(bandwidthPlan({ ...spec, bandwidthAmount: 1000 }, 100_000, 600)).toEqual({ kind: 'top-up', amount: 1000, free: 600 });
  expect(bandwidthPlan({ ...spec, bandwidth: true }, 100_000, null)).toEqual({ kind: 'top-up', amount: DEFAULT_BANDWIDTH_AMOUNT, free: null });
});

test('bandwidth object: planned before pickup, then enough, done, failed or skipped with its reason', () => {
  const bw = { resource: 'bandwidth' as const, amount: 1000 };
  expect(bandwidthOf(item({ progress: 'queued' }), undefined)).toEqual({ status: 'planned', skipReason: null });
  expect(bandwidthOf(item({ progress: 'queued', bandwidth: false }), undefined)).toEqual({ status: 'skipped', skipReason: 'option_off' });
  expect(bandwidthOf(item({ progress: 'cancelled' }), undefined)).toEqual({ status: 'skipped', skipReason: null });
  expect(bandwidthOf(item({ bandwidthPlan: { kind: 'skip', reason: 'amount_large' } }), undefined)).toEqual({ status: 'skipped', skipReason: 'amount_large' });
  expect(bandwidthOf(item({ bandwidthPlan: { kind: 'enough', free: 600 } }), undefined).status).toBe('enough');
  const topUp = { kind: 'top-up' as const, amount: 1000, free: 600 };
  expect(bandwidthOf(item({ progress: 'started', bandwidthPlan: topUp }), undefined).status).toBe('planned');
  expect(bandwidthOf(item({ bandwidthPlan: topUp, bandwidthOrderId: 'o' }), order({ ...bw, status: 'allocating' })).status).toBe('planned');
  expect(bandwidthOf(item({ bandwidthPlan: topUp, bandwidthOrderId: 'o' }), order({ ...bw, status: 'active' })).status).toBe('done');
  expect(bandwidthOf(item({ bandwidthPlan: topUp, bandwidthOrderId: 'o' }), order({ ...bw, status: 'failed' })).status).toBe('failed');
  expect(bandwidthOf(item({ bandwidthPlan: topUp, bandwidthFailure: { code: 4001, slug: 'insufficient_funds', message: 'm' } }), undefined).status).toBe('failed');
});

test('an item is processing while its top-up order still awaits delivery', () => {
  const done = item({ orderIds: ['a'], bandwidthOrderId: 'b' });
  expect(itemStatus(done, [order()], order({ resource: 'bandwidth', status: 'allocating' }))).toBe('processing');
  expect(itemStatus(done, [order()], order({ resource: 'bandwidth', status: 'active' }))).toBe('completed');
});

test('stored form: null fields and empty orderIds left out, read back as they were; full older forms read the same', () => {
  const roundTrip = (i: BatchItem) => itemFromStored(parseOwnJson(stringifyJson(storedForm(i))) as Record<string, any>);
  const queued = item({ progress: 'queued', receiverActive: null, startedAt: null, finishedAt: null, maxPriceSun: 9_223_372_036_854_775_807n });
  expect(stringifyJson(storedForm(queued))).toBe('{"receiver":"TA","resource":"energy","amount":100000,"tier":"5m","maxPriceSun":9223372036854775807,"progress":"queued"}');
  expect(roundTrip(queued)).toStrictEqual(queued);
  const done = item({ orderIds: ['ord_1', 'ord_2'], failure: { code: 3001, slug: 'insufficient_funds', message: 'm' }, bandwidthPlan: { kind: 'skip', reason: null }, bandwidthOrderId: 'ord_0', attempts: 3, maxPriceSun: 5n });
  expect(roundTrip(done)).toStrictEqual(done);
  // A row written in full (before the stored form) reads the same.
  expect(itemFromStored(parseOwnJson(stringifyJson(queued)) as Record<string, any>)).toStrictEqual(queued);
  const specs = mergeItems({ resource: 'energy', amount: 10_000, tier: '1h', maxPriceSun: 7n }, [{ receiver: 'TA' }, { receiver: 'TB', activate: true, clientOrderIdPrefix: 'p' }]);
  const create = { type: 'batch.create' as const, batchKey: 'k', clientBatchId: null, requestHash: 'h', items: specs };
  const wire = batchStepToWire(create);
  expect(wire.payload).toContain('"items":[{"receiver":"TA","resource":"energy","amount":10000,"tier":"1h","maxPriceSun":7},');
  expect(batchStepFromWire(wire)).toStrictEqual(create);
  // A batch.create sent in full (before) reads the same.
  expect(batchStepFromWire({ ...wire, payload: stringifyJson({ batchKey: 'k', clientBatchId: null, requestHash: 'h', items: specs }) })).toStrictEqual(create);
  expect(specFromStored({ receiver: 'TC', resource: 'bandwidth' })).toStrictEqual({ receiver: 'TC', resource: 'bandwidth', amount: null, tier: null, activate: null, bandwidth: null, bandwidthAmount: null, maxPriceSun: null, clientOrderIdPrefix: null });
});

test('a batch reads as finished only with its finished_at: open with every receiver done, it is processing', () => {
  const orders = new Map([['ord_1', { ...order(), id: 'ord_1', allocations: [] } as never]]);
  const open = {
    id: 'bat_1', accountId: 'acc_1', batchKey: 'k', clientBatchId: 'cb', requestHash: 'h', items: [item({ orderIds: ['ord_1'] })],
    createdAt: 1, finishedAt: null, finalStatus: null, chargedSun: null,
  };
  expect(batchStatus(['completed'])).toBe('completed');
  expect(batchJson(open, orders)).toMatchObject({ status: 'processing', finished_at: null });
  expect(batchJson({ ...open, finishedAt: 5_000, finalStatus: 'completed', chargedSun: 4_000_000n }, orders))
    .toMatchObject({ status: 'completed', finished_at: new Date(5_000).toISOString() });
  expect(batchJson({ ...open, items: [item({ progress: 'queued', orderIds: [] })] }, new Map())).toMatchObject({ status: 'queued', finished_at: null });
});
