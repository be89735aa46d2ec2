/**
 * Batches on the devnet for integration tests: a delivery stack with the batch executor running beside it,
 * and the reads the batch tests wait on (a batch until a condition, its batch.completed events).
 */
import { TronWeb } from 'tronweb';
import { commandBusFor } from '../../services/platform/command-bus';
import { startBatchExecutor } from '../../services/batches/executor';
import { getUntil, orderCall, startDeliveryStack, type OrderStack } from './orders';
import { readTopic } from './topic-reader';

export interface BatchStack {
  stack: OrderStack;
  tronWeb: TronWeb;
  /** Stops the executor and its command bus (the stack itself is the caller's to stop). */
  stopExecutor: () => Promise<void>;
}

/** A delivery stack plus a batch executor working `concurrency` receivers at a time. */
export async function startBatchStack(name: string, concurrency: number, env: Record<string, string>): Promise<BatchStack> {
  const stack = await startDeliveryStack(name, 1, env);
  const tronWeb = new TronWeb({ fullHost: stack.devnet.url });
  const bus = commandBusFor(stack.rt);
  await bus.start();
  const executor = await startBatchExecutor({ cfg: stack.rt.cfg, pool: stack.rt.pool, bus, clock: stack.rt.clock, concurrency });
  return { stack, tronWeb, stopExecutor: async () => (await executor.stop(), await bus.stop()) };
}

/** GET /v1/batches/{id} until `done` holds (the error shows the last summary: the items may be many). */
export function batchUntil(
  stack: OrderStack, customer: Parameters<typeof orderCall>[1], id: string, done: (b: any) => boolean, timeoutMs = 90_000,
): Promise<any> {
  return getUntil(stack, customer, `/v1/batches/${id}`, done, { timeoutMs, intervalMs: 300, describe: (b) => b?.summary });
}

/** The batch.completed events of one batch on the world's account-events topic. */
export async function completedEvents(stack: OrderStack, batchId: string): Promise<any[]> {
  const records = await readTopic<any>(stack.rt, 'accountEvents');
  return records.map((r) => r.value).filter((e) => e.type === 'batch.completed' && e.data?.batch_id === batchId);
}
