/**
 * What the API opens before it listens, so a fresh process's first requests do not open it on their path.
 * Measured on the first POST /v1/batches of a fresh process (bench/README.md, "A fresh process's first
 * POSTs"): a PostgreSQL connection started beside the request (tens to hundreds of ms), the
 * API-key cache's LISTEN connection opened by the first signed request (which meanwhile read its key row
 * from the pool), the signature guard's copy into Redis (until done, each signed write is a row insert in
 * PostgreSQL), the producer's connection, the cipher of the key secrets.
 * The code of a batch POST's own steps is compiled on its first call (V8 compiles lazily): a sample batch goes
 * once through the route's pure steps, its answer's view and JSON, and the codec (encoded and decoded, which
 * checks the schema round trip; never sent).
 * All of it is work the process does anyway, moved earlier; nothing is written and no request is faked.
 * Each step is bounded and best effort: a dependency that is away does not keep the API from listening
 * (the request path falls back as it does at any time, and /readyz reports the dependency).
 */
import { batchRequestHash, duplicateReceiver, mergeItems, queuedBatch } from '../domain/batches/rules';
import { batchJson } from '../domain/batches/view';
import type { Command } from '../domain/commands';
import { openConnections } from '../platform/db/pool';
import { stringifyJson } from '../platform/json';
import { logger } from '../platform/logger';
import type { Runtime } from '../chain/clients';
import { apiKeyCache } from './auth/key-cache';
import { checkSecretKeys } from './auth/key-secrets';
import { usedSignatures } from './auth/used-signatures';
import { accountLimits } from '../domain/account';

/** Longest one step may take before the API listens without it. */
const STEP_BOUND_MS = 5_000;

function bounded(step: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${STEP_BOUND_MS} ms`)), STEP_BOUND_MS);
  });
  return Promise.race([step, late]).finally(() => clearTimeout(timer));
}

/** A batch of `limits.max_batch_receivers` made-up receivers through what POST /v1/batches runs besides its I/O. */
async function rehearseBatch(rt: Runtime): Promise<void> {
  const receivers = Array.from({ length: accountLimits.max_batch_receivers }, (_, k) => ({ receiver: `T${String(k).padStart(33, '0')}` }));
  duplicateReceiver(receivers);
  const items = mergeItems({ resource: 'energy', amount: 65_000, tier: '1h', maxPriceSun: 1n }, receivers);
  const fields = { id: 'bat_warmup', accountId: 'acc_warmup', batchKey: 'warm-up', clientBatchId: 'warm-up', requestHash: batchRequestHash('warm-up', items), createdAt: rt.clock.now() };
  const command = {
    type: 'batch.create', accountId: fields.accountId, batchKey: fields.batchKey, clientBatchId: fields.clientBatchId, requestHash: fields.requestHash, items,
    commandId: 'cmd_warmup', issuedAt: fields.createdAt, deadlineAt: null, replyTo: null,
  } as Command;
  await rt.codec.decodeCommand((await rt.codec.encodeCommand(command)).value);
  stringifyJson(batchJson(queuedBatch(fields, items), new Map()));
}

/** Runs the steps at once; answers each one's outcome ('ok', 'not yet', or the failure) and logs what was not ok. */
export async function warmUpApi(rt: Runtime): Promise<Record<string, string>> {
  // A key that cannot seal is a configuration error: it throws here, before the API listens.
  checkSecretKeys(rt.cfg.API_KEY_DECRYPTION_KEYS);
  const steps: Record<string, () => Promise<unknown>> = {
    postgres: () => openConnections(rt.pool, rt.cfg.DATABASE_POOL_MIN),
    api_key_cache: async () => ((await apiKeyCache(rt).start()) ? undefined : 'not yet'),
    used_signatures: async () => ((await usedSignatures(rt).start()) ? undefined : 'not yet'),
    kafka_producer: () => rt.log.connectProducer(),
    batch_path: () => rehearseBatch(rt),
  };
  const outcomes = await Promise.all(Object.entries(steps).map(async ([name, step]) => {
    try {
      return [name, (await bounded(step())) ?? 'ok'] as const;
    } catch (err) {
      return [name, `failed: ${(err as Error).message}`] as const;
    }
  }));
  const result = Object.fromEntries(outcomes) as Record<string, string>;
  const notOk = Object.fromEntries(outcomes.filter(([, v]) => v !== 'ok'));
  if (Object.keys(notOk).length > 0) logger.warn({ steps: notOk }, 'api warm-up: listening without these (their requests fall back meanwhile)');
  return result;
}
