/**
 * Subscription watcher benchmark (not a test). Run against the test stack:
 *   infra/env/load.sh test -- npx tsx bench/subscriptions.ts
 * One process holds the processor, relay, broadcaster, confirmer and the watcher; the devnet runs in its own
 * process with BENCH_BLOCK_MS blocks (default 1000). BENCH_RECEIVERS refill subscriptions are watched
 * (default 10,000, 100 per account); BENCH_ACTIVE of them are real wallets that first get a refill, then burn
 * energy with one USDT transfer each to cross below the threshold. Prints:
 *   1. the watcher's lag per block (block time to the block's receivers re-read): p50, p99, max, reads per block;
 *   2. crossing to refill: from the block holding the crossing transfer to the refill order created and to
 *      its delegation in a block, in ms and in blocks (p50, p99; target p99 <= 2 blocks to broadcast).
 */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import type { Command } from '../services/domain/commands';
import { randomId } from '../services/domain/ids';
import { commandBusFor } from '../services/platform/command-bus';
import { createRuntime } from '../services/platform/runtime';
import { startRoles } from '../services/roles';
import { subscriptionRequestHash, type SubscriptionSpec } from '../services/subscriptions/rules';
import { SubscriptionWatcher } from '../services/subscriptions/watcher';
import { startDevnet } from '../test/devnet/start-devnet';
import { newWallet } from '../test/support/identity';
import { dropWorld, newWorld } from '../test/support/world';

const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 10_000);
const ACTIVE = Number(process.env.BENCH_ACTIVE ?? 20);
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 1000);
const PER_ACCOUNT = 100;
const THRESHOLD = 30_000;
const AMOUNT = 40_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50)}, p99 ${percentile(s, 99)}, max ${s[s.length - 1]} (n=${s.length})`;
};

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out: ${what}`);
    await sleep(200);
  }
}

async function main(): Promise<void> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: String(BLOCK_MS) });
  const world = newWorld('benchsubs', { LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: '100' });
  const rt = await createRuntime(world.cfg);
  const bus = commandBusFor(rt, { timeoutMs: 30_000 });
  await bus.start();
  const roles = await startRoles(rt, ['processor', 'relay', 'broadcaster', 'confirmer']);
  const tronWeb = new TronWeb({ fullHost: devnet.url });
  let watcher: SubscriptionWatcher | undefined;
  try {
    // Accounts (100 subscriptions each), funded; appended straight to the log.
    const accounts = Array.from({ length: Math.ceil(RECEIVERS / PER_ACCOUNT) }, () => randomId('account'));
    const meta = (accountId: string) => ({ commandId: randomId('command'), accountId, issuedAt: rt.clock.now(), deadlineAt: null, replyTo: null });
    await bus.append(accounts.map((accountId) => ({ ...meta(accountId), type: 'account.create', brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null }) as Command));
    await bus.append(accounts.map((accountId) => ({ ...meta(accountId), type: 'balance.adjust', amountSun: 1_000_000_000n, memo: 'bench' }) as Command));
    await waitFor('accounts funded', async () => (await rt.pool.query('SELECT count(*)::int AS n FROM accounts WHERE balance_sun > 0')).rows[0].n === accounts.length);

    // Active receivers: real wallets with TRX and USDT; the rest random addresses never crossing (threshold 0).
    const active = await Promise.all(Array.from({ length: ACTIVE }, () => newWallet()));
    for (const w of active) await devnet.post('/admin/faucet', { to: w.address, trx_sun: 100_000_000, usdt: 100_000_000 });
    const passive = Array.from({ length: RECEIVERS - ACTIVE }, () => TronWeb.address.fromHex(`41${randomBytes(20).toString('hex')}`));
    const specs: SubscriptionSpec[] = [
      ...active.map((w) => ({ receiver: w.address, thresholdAmount: THRESHOLD })),
      ...passive.map((receiver) => ({ receiver, thresholdAmount: 0 })),
    ].map((r) => ({ kind: 'refill', resource: 'energy', amount: AMOUNT, tier: '1h', maxPriceSun: null, maxRefillsPerDay: 24, ...r }));
    const t0 = Date.now();
    await bus.append(specs.map((spec, i) => ({
      ...meta(accounts[Math.floor(i / PER_ACCOUNT)]), type: 'subscription.create', clientSubscriptionId: null, requestHash: subscriptionRequestHash(null, spec), ...spec,
    }) as Command));
    await waitFor('subscriptions created', async () => (await rt.pool.query('SELECT count(*)::int AS n FROM subscriptions')).rows[0].n === RECEIVERS);
    console.log(`${RECEIVERS} subscriptions created through the log in ${Date.now() - t0} ms`);

    watcher = new SubscriptionWatcher({ cfg: rt.cfg, pool: rt.pool, bus, clock: rt.clock, reader: rt.chain.reader, prices: rt.prices });
    const t1 = Date.now();
    await watcher.tick();
    console.log(`first pass (every receiver read once): ${Date.now() - t1} ms`);
    watcher.start();

    // The active receivers start at 0 energy: their first refill, delivered.
    const delivered = "status IN ('confirmed', 'active')";
    await waitFor('first refills delivered', async () => (await rt.pool.query(`SELECT count(*)::int AS n FROM orders WHERE ${delivered}`)).rows[0].n === ACTIVE, 180_000);
    watcher.applied.length = 0;

    // Each burns energy with a USDT transfer: one crossing each.
    const usdtOf = async (w: { address: string; privateKey: string }) => new TronWeb({ fullHost: devnet.url, privateKey: w.privateKey }).contract().at(devnet.accounts.usdt_contract);
    const crossings = await Promise.all(active.map(async (w) => {
      const usdt = await usdtOf(w);
      return { receiver: w.address, txid: (await usdt.transfer(devnet.accounts.faucet.address, 1_000).send({ feeLimit: 50_000_000 })) as string };
    }));
    await waitFor('second refills delivered', async () => (await rt.pool.query(`SELECT count(*)::int AS n FROM orders WHERE ${delivered}`)).rows[0].n === 2 * ACTIVE, 120_000);

    const toOrderMs: number[] = [];
    const toLandedBlocks: number[] = [];
    const toLandedMs: number[] = [];
    for (const c of crossings) {
      const info: any = await tronWeb.trx.getTransactionInfo(c.txid);
      const { rows } = await rt.pool.query("SELECT created_at, allocations FROM orders WHERE receiver = $1 ORDER BY created_at DESC LIMIT 1", [c.receiver]);
      const tx = (rows[0].allocations as any[]).find((a) => a.kind === 'delegate');
      const landed: any = await tronWeb.trx.getTransactionInfo(tx.txId);
      toOrderMs.push(rows[0].created_at.getTime() - info.blockTimeStamp);
      toLandedMs.push(landed.blockTimeStamp - info.blockTimeStamp);
      toLandedBlocks.push(landed.blockNumber - info.blockNumber);
    }
    const lags = watcher.applied.map((a) => a.lagMs);
    const reads = watcher.applied.map((a) => a.reads);
    console.log(`watcher lag per block (${BLOCK_MS} ms blocks, ${RECEIVERS} watched): ${stats(lags)} ms; receivers re-read per block: ${stats(reads)}`);
    console.log(`crossing block -> refill order created: ${stats(toOrderMs)} ms`);
    console.log(`crossing block -> refill delegation in a block: ${stats(toLandedMs)} ms; ${stats(toLandedBlocks)} blocks (broadcast is one block before landing)`);
    const { rows: twice } = await rt.pool.query('SELECT subscription_id FROM orders WHERE subscription_id IS NOT NULL GROUP BY subscription_id HAVING count(*) > 2');
    console.log(`subscriptions with more than the two expected refills: ${twice.length}`);
  } finally {
    await watcher?.stop();
    await Promise.allSettled(roles.map((r) => r.stop()));
    await bus.stop();
    await dropWorld(world, rt).catch(() => undefined);
    await rt.close();
    await devnet.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
