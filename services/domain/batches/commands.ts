/**
 * Batch commands. On the wire they share one Avro record (`BatchStep`: kind, batch id, JSON payload with
 * int64 kept exact), so a new batch step needs no schema change.
 */
import { type BandwidthPlan, type ItemFailure, type ItemSpec, type ItemStatus } from './rules';

/** POST /v1/batches: the merged items; the batch id derives from the command id. */
export interface CreateBatchCommand {
  type: 'batch.create';
  batchKey: string;
  clientBatchId: string | null;
  requestHash: string;
  items: ItemSpec[];
}

/** POST /v1/batches/{id}/cancel: queued receivers cancelled, started ones left alone. */
export interface CancelBatchCommand {
  type: 'batch.cancel';
  batchId: string;
}

/**
 * The executor's steps for one receiver: `start` picks it up (refused once cancelled), `done` records the
 * orders it got and why it stopped. Ids derive from (batch, receiver, step), so a restart repeats them harmlessly.
 */
export interface BatchItemCommand {
  type: 'batch.item';
  batchId: string;
  receiver: string;
  step: 'start' | 'done';
  orderIds: string[];
  failure: ItemFailure | null;
  receiverActive: boolean | null;
  at: number;
  /** start: the top-up decision, from the bandwidth read at pickup. */
  bandwidthPlan?: BandwidthPlan | null;
  /** done: the top-up order, or why it was refused. */
  bandwidthOrderId?: string | null;
  bandwidthFailure?: ItemFailure | null;
  /** done: order commands sent for the receiver. */
  attempts?: number;
}

/** One receiver's part of a `batch.items` step: the fields `batch.item` carries for it. */
export interface ItemStepEntry {
  receiver: string;
  /** start: the activation read at pickup; done: as the executor last knew it. */
  receiverActive: boolean | null;
  /** start: the top-up decision. */
  bandwidthPlan?: BandwidthPlan | null;
  /** done: the receiver's orders, why it stopped, its top-up, the order commands sent. */
  orderIds?: string[];
  failure?: ItemFailure | null;
  bandwidthOrderId?: string | null;
  bandwidthFailure?: ItemFailure | null;
  attempts?: number;
}

/**
 * `batch.item` for many receivers of one batch in one command (the executor starts a batch's receivers
 * together and records them done in waves): one apply and one row write instead of one per receiver. Each
 * entry is decided alone, exactly as `batch.item` would: a cancelled receiver is not started (the others
 * are), a repeat changes nothing, so a restart that groups receivers differently decides the same.
 */
export interface BatchItemsCommand {
  type: 'batch.items';
  batchId: string;
  step: 'start' | 'done';
  entries: ItemStepEntry[];
  at: number;
}

/** Every receiver terminal, as the executor read the orders: statuses in item order and the charge. */
export interface CompleteBatchCommand {
  type: 'batch.complete';
  batchId: string;
  statuses: ItemStatus[];
  chargedSun: bigint;
  at: number;
}

export type BatchCommand = CreateBatchCommand | CancelBatchCommand | BatchItemCommand | CompleteBatchCommand | BatchItemsCommand;
export const batchCommandTypes: ReadonlySet<string> = new Set(['batch.create', 'batch.cancel', 'batch.item', 'batch.complete', 'batch.items']);
