/**
 * Exactly one refill under failure: the subscription watcher runs as its own process and SIGKILLs itself
 * (crash points) right after seeing a receiver under its threshold, first before appending the refill,
 * then right after appending it, then runs normally. The receiver gets one refill order, charged once,
 * delivered on chain; a replay rebuilds the database (crash stack teardown).
 */
import { TronWeb } from 'tronweb';
import { startCrashStack, type CrashStack } from '../../support/crash-stack';
import { newWallet } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderCall } from '../../support/orders';
import { startService, type ServiceProcess } from '../../support/service-process';
import { processorCaughtUp } from '../../support/processor-lag';
import { eventually } from '../../support/world';

let crash: CrashStack;

beforeAll(async () => {
  crash = await startCrashStack('subcrash', { inProcess: ['processor', 'relay', 'broadcaster', 'confirmer'], children: [] });
}, 120_000);

afterAll(async () => {
  await crash?.stop();
});

/** The watcher as a child process; resolves with how it ended (a crash point's SIGKILL, or ours). */
function watcher(chaos: string | null): { proc: ServiceProcess; ended: Promise<string | null> } {
  const proc = startService(crash.world, 'subscription-watcher', chaos ? { CHAOS_CRASH_POINTS: chaos } : {});
  const ended = new Promise<string | null>((resolve) => proc.child.once('exit', (_code, signal) => resolve(signal)));
  return { proc, ended };
}

test('the watcher SIGKILLed between seeing a crossing and appending, and right after appending: one refill, never two', async () => {
  const { rt, devnet } = crash;
  const customer = await fundedCustomer(crash, 100_000_000n);
  const receiver = (await newWallet()).address;
  await devnet.post('/admin/faucet', { to: receiver, trx_sun: 10_000_000 });
  const created = await orderCall(crash, customer, 'POST', '/v1/subscriptions', {
    kind: 'refill', receiver, resource: 'energy', amount: 65_000, tier: '1h', threshold_amount: 30_000,
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const lastOrder = async () => (await rt.pool.query('SELECT last_order_id FROM subscriptions WHERE id = $1', [id])).rows[0].last_order_id as string | null;

  // Sees the receiver at 0 energy, dies before appending: nothing ordered.
  const before = watcher('subscription-watcher.before-append:1');
  expect(await before.ended).toBe('SIGKILL');
  // Whatever reached the log before the kill is applied once the processor's lag is zero (was: a 1.5 s pause).
  await processorCaughtUp(rt);
  expect(await lastOrder()).toBeNull();

  // Sees it again, appends, dies at once; then again (the refill may not be applied yet: the same command).
  for (let k = 0; k < 2; k += 1) {
    const after = watcher('subscription-watcher.after-append:1');
    // Started (or already dead), then a few passes' time: a loaded machine takes seconds just to start the child.
    const running = after.proc.ready.catch(() => undefined).then(() => new Promise<string>((r) => setTimeout(() => r('running'), 15_000)));
    const how = await Promise.race([after.ended, running]);
    // The first run sees the crossing again (nothing was appended before) and dies right after appending.
    if (k === 0) expect(how).toBe('SIGKILL');
    if (how === 'running') await after.proc.kill('SIGKILL');
  }

  // A healthy watcher from here on: the refill is delivered and no second one is ever ordered.
  const healthy = watcher(null);
  await healthy.proc.ready;
  const orderId = await eventually(async () => (await lastOrder()) ?? undefined, 30_000, 'the refill');
  await eventually(async () => {
    const { rows } = await rt.pool.query('SELECT status FROM orders WHERE id = $1', [orderId]);
    return rows[0]?.status === 'active' || rows[0]?.status === 'confirmed';
  }, 90_000, 'the refill delivered');
  await new Promise((r) => setTimeout(r, 3_000));
  await healthy.proc.kill('SIGKILL');

  const { rows: orders } = await rt.pool.query('SELECT id FROM orders WHERE subscription_id = $1', [id]);
  expect(orders.map((o) => o.id)).toEqual([orderId]);
  const { rows: charges } = await rt.pool.query("SELECT count(*)::int AS n FROM journals WHERE order_id = $1 AND kind = 'subscription_usage'", [orderId]);
  expect(charges[0].n).toBe(1);
  const sub = (await rt.pool.query('SELECT refills_today, status FROM subscriptions WHERE id = $1', [id])).rows[0];
  expect(sub).toEqual({ refills_today: 1, status: 'active' });
  const tronWeb = new TronWeb({ fullHost: devnet.url });
  expect(Number((await tronWeb.trx.getAccountResources(receiver) as any).EnergyLimit ?? 0)).toBeGreaterThanOrEqual(65_000);
  await assertLedgerInvariants(rt.pool);
}, 240_000);
