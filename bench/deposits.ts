/**
 * Deposit watcher benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/deposits.ts
 * Prints, in one run on one machine (devnet on its own port, blocks produced on demand):
 *   1. deposits per second credited: BENCH_DEPOSITS TRX deposits to BENCH_ACCOUNTS accounts sit in
 *      confirmed solidified blocks; the watcher starts; time until every one is credited (watcher scan,
 *      append, processor apply);
 *   2. delay from the block that confirms a deposit (solidified, confirmations reached) to its
 *      balance.credited event published on account-events (watcher poll 100 ms), p50/p95/max over
 *      BENCH_SAMPLES deposits.
 */
import { randomId } from '../services/domain/ids';
import { DepositWatcher } from '../services/deposits/watcher';
import { depositAddressAt } from '../services/chain/deposit-derivation';
import { commandBusFor } from '../services/platform/command-bus';
import { createRuntime } from '../services/runtime';
import { startRoles } from '../services/roles';
import { startDevnet } from '../test/devnet/start-devnet';
import { dropWorld, newWorld } from '../test/support/world';
import { percentile } from './figures';

const DEPOSITS = Number(process.env.BENCH_DEPOSITS ?? 1000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20);
const CONFIRMATIONS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '3600000' });
  const world = newWorld('benchdeposits', {
    LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.accounts.usdt_contract, DEPOSIT_CONFIRMATIONS: String(CONFIRMATIONS),
    DEPOSIT_POLL_MS: '100', USDT_RATE_SOURCE: 'fixed_env', USDT_FIXED_RATE: '3.5',
  });
  const rt = await createRuntime(world.cfg);
  const bus = commandBusFor(rt, { timeoutMs: 30_000 });
  await bus.start();
  const roles = await startRoles(rt, ['processor', 'relay']);
  let watcher: DepositWatcher | undefined;
  try {
    const addresses: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const address = depositAddressAt(rt.cfg.DEPOSIT_XPUB, i);
      const result = await bus.submit({
        type: 'account.create', accountId: randomId('account'), brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null,
        displayName: null, depositAddress: address, depositIndex: i,
      });
      if (result.outcome !== 'applied') throw new Error(`account: ${JSON.stringify(result)}`);
      addresses.push(address);
    }

    // 1. Throughput: the deposits wait in confirmed blocks, then the watcher starts.
    for (let i = 0; i < DEPOSITS; i++) {
      await devnet.post('/admin/faucet', { to: addresses[i % ACCOUNTS], trx_sun: 1_000_000 + i });
      if (i % 200 === 199) await devnet.post('/admin/blocks', { count: 1 });
    }
    await devnet.post('/admin/blocks', { count: CONFIRMATIONS + 1 });
    const credited = async () => Number((await rt.pool.query("SELECT count(*) AS n FROM deposits WHERE status = 'credited'")).rows[0].n);
    const started = Date.now();
    watcher = new DepositWatcher({ cfg: rt.cfg, pool: rt.pool, bus, clock: rt.clock });
    watcher.start();
    while ((await credited()) < DEPOSITS) await sleep(20);
    const seconds = (Date.now() - started) / 1000;
    console.log(`deposits credited: ${DEPOSITS} in ${seconds.toFixed(2)} s = ${(DEPOSITS / seconds).toFixed(0)} deposits/s (${ACCOUNTS} accounts)`);

    // 2. Latency: confirming block produced → balance.credited published.
    const delays: number[] = [];
    for (let s = 0; s < SAMPLES; s++) {
      const { txids } = await devnet.post('/admin/faucet', { to: addresses[s % ACCOUNTS], trx_sun: 2_000_000 + s });
      await devnet.post('/admin/blocks', { count: CONFIRMATIONS });
      const confirmedAt = Date.now();
      for (;;) {
        const { rows } = await rt.pool.query(
          `SELECT o.id FROM deposits d JOIN outbox o ON o.payload->>'type' = 'balance.credited' AND o.payload->'data'->>'txid' = d.txid
           WHERE d.txid = $1 AND NOT EXISTS (SELECT 1 FROM outbox_unpublished u WHERE u.id = o.id)`,
          [txids[0]],
        );
        if (rows.length) break;
        await sleep(5);
      }
      delays.push(Date.now() - confirmedAt);
    }
    delays.sort((a, b) => a - b);
    console.log(`confirming block -> balance.credited published: p50 ${percentile(delays, 50)} ms, p95 ${percentile(delays, 95)} ms, max ${delays[delays.length - 1]} ms (${SAMPLES} deposits, poll 100 ms)`);
  } finally {
    await watcher?.stop();
    await Promise.allSettled(roles.map((r) => r.stop()));
    await bus.stop();
    rt.pool.on('error', () => undefined);
    await dropWorld(world, rt).catch((err) => console.error(`teardown: ${(err as Error).message}`));
    await rt.close().catch(() => undefined);
    await devnet.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
