/**
 * The processor's batch handlers: pure, over the batch state the processor loaded. Creation charges
 * nothing (receivers are billed one by one when their orders execute); completion emits batch.completed
 * once, from the statuses the executor read, which travel in the command so a replay decides the same.
 */
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { eventIdFor } from '../events';
import { derivedId } from '../ids';
import { noEffects, rejected, type BatchView, type Handler, type Outcome, type StateView } from '../outcome';
import type { ItemStepEntry } from './commands';
import { batchStatus, queuedBatch, summaryOf, type Batch, type BatchItem, type ItemStatus } from './rules';

function batchesOf(state: StateView): BatchView {
  if (!state.batches) throw new Error('batch commands need the batch state view');
  return state.batches;
}

function ownBatch(state: StateView, accountId: string, batchId: string): Batch | undefined {
  const batch = batchesOf(state).byId(batchId);
  return batch && batch.accountId === accountId ? batch : undefined;
}

const changed = (status: 200 | 202, body: Record<string, unknown>, batch: Batch): Outcome => ({
  kind: 'applied', status, body, effects: { ...noEffects(), batches: [batch] },
});

/**
 * The answer is small (the id, and whether it is new): the route shows the queued batch from the request it
 * holds, or reads the original back. A 100-receiver Batch object through command_results and the reply
 * channel cost more than the rest of the request.
 */
export const createBatch: Handler<CommandOf<'batch.create'>> = (state, c) => {
  if (!state.account(c.accountId)) return rejected(domainError('not_found', 'No such account.'));
  const existing = batchesOf(state).byKey(c.accountId, c.batchKey);
  if (existing) {
    if (existing.requestHash !== c.requestHash) {
      return rejected(domainError('idempotency_conflict', 'This batch id was used with a different request.', { field: existing.clientBatchId !== null ? 'client_batch_id' : 'Idempotency-Key' }));
    }
    return { kind: 'applied', status: 200, body: { id: existing.id, created_at: existing.createdAt }, effects: noEffects() };
  }
  const batch = queuedBatch({
    id: derivedId('batch', c.commandId), accountId: c.accountId, batchKey: c.batchKey, clientBatchId: c.clientBatchId, requestHash: c.requestHash, createdAt: c.issuedAt,
  }, c.items);
  return changed(202, { id: batch.id, created_at: batch.createdAt }, batch);
};

export const cancelBatch: Handler<CommandOf<'batch.cancel'>> = (state, c) => {
  const batch = ownBatch(state, c.accountId, c.batchId);
  if (!batch) return rejected(domainError('not_found', 'No such batch.'));
  const queued = batch.items.filter((i) => i.progress === 'queued').length;
  if (queued === 0) return rejected(domainError('order_not_cancellable', 'No receiver of this batch is still queued.'));
  const next: Batch = {
    ...batch,
    items: batch.items.map((i) => (i.progress === 'queued' ? { ...i, progress: 'cancelled', finishedAt: c.issuedAt } : i)),
  };
  // Every receiver cancelled: nothing ran, nothing can settle later, so the batch finishes here (its
  // `batch.completed` once, with its finished_at), not a pass of the executor later.
  if (next.items.every((i) => i.progress === 'cancelled')) {
    const done = completion(next, next.items.map(() => 'cancelled' as const), 0n, c.issuedAt, c.commandId);
    return { kind: 'applied', status: 200, body: { id: batch.id, cancelled: queued }, effects: { ...noEffects(), batches: [done.batch], events: [done.event] } };
  }
  return changed(200, { id: batch.id, cancelled: queued }, next);
};

/** One receiver's step, alone: the item after it, or the same item when the step changes nothing (a repeat). */
function stepItem(item: BatchItem, step: 'start' | 'done', e: ItemStepEntry, at: number): BatchItem {
  if (step === 'start') {
    if (item.progress !== 'queued') return item;
    return { ...item, progress: 'started', startedAt: at, receiverActive: e.receiverActive, bandwidthPlan: e.bandwidthPlan ?? null };
  }
  if (item.progress !== 'started') return item;
  const orderIds = e.orderIds ?? [];
  return {
    ...item, progress: 'done', orderIds, failure: e.failure ?? null, receiverActive: e.receiverActive ?? item.receiverActive, finishedAt: at,
    bandwidthOrderId: e.bandwidthOrderId ?? null, bandwidthFailure: e.bandwidthFailure ?? null, attempts: e.attempts ?? orderIds.length,
  };
}

const ackOf = (batchId: string, item: BatchItem) => ({
  id: batchId, receiver: item.receiver, progress: item.progress, receiver_active: item.receiverActive, bandwidth_plan: item.bandwidthPlan ?? null,
});

export const stepBatchItem: Handler<CommandOf<'batch.item'>> = (state, c) => {
  const batch = ownBatch(state, c.accountId, c.batchId);
  if (!batch) return rejected(domainError('not_found', 'No such batch.'));
  const index = batch.items.findIndex((i) => i.receiver === c.receiver);
  if (index < 0) return rejected(domainError('not_found', 'No such receiver in this batch.'));
  const item = batch.items[index];
  if (c.step === 'start' && item.progress === 'cancelled') return rejected(domainError('order_not_cancellable', 'The receiver was cancelled.'));
  const next = stepItem(item, c.step, c, c.at);
  if (next === item) return { kind: 'applied', status: 200, body: ackOf(batch.id, item), effects: noEffects() };
  return changed(200, ackOf(batch.id, next), { ...batch, items: batch.items.map((x, k) => (k === index ? next : x)) });
};

/**
 * Many receivers of one batch, each decided as `batch.item` decides it; the answer lists every entry's item
 * as it stands after the step (`cancelled`: not started; `progress: null`: no such receiver in the batch).
 */
export const stepBatchItems: Handler<CommandOf<'batch.items'>> = (state, c) => {
  const batch = ownBatch(state, c.accountId, c.batchId);
  if (!batch) return rejected(domainError('not_found', 'No such batch.'));
  const at = new Map(batch.items.map((item, k) => [item.receiver, k]));
  const items = [...batch.items];
  let moved = false;
  const answers = c.entries.map((e) => {
    const k = at.get(e.receiver);
    if (k === undefined) return { id: batch.id, receiver: e.receiver, progress: null, receiver_active: null, bandwidth_plan: null };
    const next = stepItem(items[k], c.step, e, c.at);
    if (next !== items[k]) (items[k] = next), (moved = true);
    return ackOf(batch.id, next);
  });
  const body = { id: batch.id, items: answers };
  return moved ? changed(200, body, { ...batch, items }) : { kind: 'applied', status: 200, body, effects: noEffects() };
};

/** A batch finished at `at` with its receivers' statuses: the row's final state and its `batch.completed`. */
function completion(batch: Batch, statuses: ItemStatus[], chargedSun: bigint, at: number, commandId: string) {
  const status = batchStatus(statuses);
  const summary = summaryOf(statuses);
  const next: Batch = { ...batch, finishedAt: at, finalStatus: status, chargedSun };
  const event = {
    eventId: eventIdFor(commandId, 0),
    type: 'batch.completed' as const,
    accountId: batch.accountId,
    createdAt: at,
    data: {
      batch_id: batch.id, client_batch_id: batch.clientBatchId, status,
      summary: { total: summary.total, completed: summary.completed, partial: summary.partial, failed: summary.failed, insufficient_funds: summary.insufficient_funds, cancelled: summary.cancelled },
      charged_amount_sun: chargedSun, finished_at: new Date(at).toISOString(),
    },
  };
  return { batch: next, event };
}

export const completeBatch: Handler<CommandOf<'batch.complete'>> = (state, c) => {
  const batch = ownBatch(state, c.accountId, c.batchId);
  if (!batch) return rejected(domainError('not_found', 'No such batch.'));
  const unfinished = batch.items.some((i) => i.progress === 'queued' || i.progress === 'started');
  if (batch.finishedAt !== null || unfinished || c.statuses.length !== batch.items.length) {
    return { kind: 'applied', status: 200, body: { id: batch.id, finished: batch.finishedAt !== null }, effects: noEffects() };
  }
  const { batch: next, event } = completion(batch, c.statuses, c.chargedSun, c.at, c.commandId);
  return { kind: 'applied', status: 200, body: { id: batch.id, finished: true }, effects: { ...noEffects(), batches: [next], events: [event] } };
};
