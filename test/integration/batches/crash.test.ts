/**
 * Exactly once under failure: the batch executor and the broadcaster run as their own processes and are
 * SIGKILLed (and restarted) while a 60-receiver batch executes. Afterwards every receiver has exactly the
 * orders its item lists (one each, never a second), each order charged at most once, the chain holds
 * exactly the stored delegations, batch.completed is on the log once, and a replay rebuilds the database.
 */
import { TronWeb } from 'tronweb';
import type { Runtime } from '../../../services/runtime';
import type { Devnet } from '../../devnet/start-devnet';
import { startCrashStack, type CrashStack } from '../../support/crash-stack';
import { newWallet } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { chainDelegations, chargesByOrder, fundedCustomer, isDelivered, landedDelegations, orderCall } from '../../support/orders';
import { readTopic } from '../../support/topic-reader';
import { eventually } from '../../support/world';

const RECEIVERS = 60;
let crash: CrashStack;
let devnet: Devnet;
let rt: Runtime;

beforeAll(async () => {
  crash = await startCrashStack('batchcrash', {
    inProcess: ['processor', 'relay', 'confirmer'],
    children: ['batch-executor', 'broadcaster'],
    // A few receivers at a time, so the batch outlives the first kill on any machine.
    childEnv: (role): Record<string, string> => (role === 'batch-executor' ? { BATCH_EXECUTOR_CONCURRENCY: '4' } : {}),
  });
  ({ devnet, rt } = crash);
}, 120_000);

afterAll(async () => {
  await crash?.stop();
});

test('SIGKILLed batch executor and broadcaster mid-batch: no receiver ordered or charged twice, batch.completed once', async () => {
  const customer = await fundedCustomer(crash, 1_000_000_000n);
  const receivers = await Promise.all(Array.from({ length: RECEIVERS }, () => newWallet().then((w) => w.address)));
  const created = await orderCall(crash, customer, 'POST', '/v1/batches', {
    client_batch_id: 'crash-1', defaults: { resource: 'energy', amount: 10_000, tier: '1h', client_order_id_prefix: 'c' }, items: receivers.map((receiver) => ({ receiver })),
  });
  expect(created.status).toBe(202);
  const batchId = created.body.id as string;

  let chaos = true;
  let kills = 0;
  let midBatchKills = 0;
  // The first kill lands as soon as the executor has started a receiver (mid-batch by construction);
  // the later ones at random moments.
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM batches, jsonb_array_elements(items) i WHERE id = $1 AND i->>'progress' <> 'queued'", [batchId]);
    return rows[0].n > 0;
  }, 60_000, 'the executor starts a receiver');
  const chaosLoop = (async () => {
    while (chaos) {
      if (kills > 0) await new Promise((r) => setTimeout(r, 700 + Math.random() * 1_300));
      if (!chaos) break;
      const role = ['batch-executor', 'broadcaster'][kills % 2];
      if (role === 'batch-executor') {
        const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM batches, jsonb_array_elements(items) i WHERE id = $1 AND i->>'progress' IN ('queued', 'started')", [batchId]);
        if (rows[0].n > 0) midBatchKills += 1;
      }
      await crash.restart(role);
      kills += 1;
    }
  })();
  await eventually(async () => kills >= 4, 120_000, 'four kills');
  chaos = false;
  await chaosLoop;
  // The executor died at least once with receivers still to run.
  expect(midBatchKills).toBeGreaterThan(0);

  await eventually(async () => {
    const { rows } = await rt.pool.query('SELECT finished_at FROM batches WHERE id = $1', [batchId]);
    return rows[0].finished_at !== null;
  }, 240_000, 'the batch finished');

  const batch = (await orderCall(crash, customer, 'GET', `/v1/batches/${batchId}`)).body;
  const { rows: orders } = await rt.pool.query('SELECT id, status, receiver, allocations, client_order_id FROM orders WHERE batch_id = $1', [batchId]);
  const byReceiver = new Map<string, any[]>();
  for (const o of orders) byReceiver.set(o.receiver, [...(byReceiver.get(o.receiver) ?? []), o]);
  const charged = await chargesByOrder(rt.pool);
  const tronWeb = new TronWeb({ fullHost: devnet.url });
  for (const item of batch.items) {
    const own = byReceiver.get(item.receiver) ?? [];
    // One order per receiver, the one its item lists: a restart never ordered again.
    expect(own.map((o) => o.id)).toEqual(item.order_ids);
    expect(own).toHaveLength(1);
    expect(own[0].client_order_id).toBe(`c-${item.receiver}`);
    expect(charged.get(own[0].id) ?? 0).toBe(own[0].status === 'failed' ? 0 : 1);
    expect(await chainDelegations(tronWeb, item.receiver)).toEqual(isDelivered(own[0]) ? landedDelegations(own[0].allocations) : new Map());
  }
  expect(batch.summary.completed).toBeGreaterThan(RECEIVERS * 0.9);
  expect(batch.summary.total).toBe(RECEIVERS);

  await new Promise((r) => setTimeout(r, 2_000));
  const events = (await readTopic<any>(rt, 'accountEvents')).map((r) => r.value).filter((e) => e.type === 'batch.completed' && e.data.batch_id === batchId);
  expect(events).toHaveLength(1);
  expect(events[0].data.summary.total).toBe(RECEIVERS);
  expect(events[0].data.charged_amount_sun).toBe(BigInt(batch.items.reduce((n: number, i: any) => n + i.charged_amount_sun, 0)));
  await assertLedgerInvariants(rt.pool);
}, 420_000);
