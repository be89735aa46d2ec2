/**
 * Subscription watcher benchmark (not a test). Run against the test stack:
 *   infra/env/load.sh test -- npx tsx bench/subscriptions.ts
 * One process holds the processor, relay, broadcaster, confirmer and the watcher; the devnet runs in its own
 * process with BENCH_BLOCK_MS blocks (default 1000). BENCH_RECEIVERS refill subscriptions are watched
 * (default 10,000, 100 per account); BENCH_ACTIVE of them are real wallets that first get a refill, then, in
 * each of BENCH_ROUNDS rounds, burn energy with USDT transfers (all landing in one block) until below the
 * threshold. Prints, with the load average:
 *   1. the watcher's lag per block (block time to the block read, and to its receivers re-read): p50, p99, max,
 *      reads per block; the full pass's duration;
 *   2. per round, crossing to refill broadcast: from the crossing block's time to the node accepting the refill's
 *      delegation, in ms and in blocks (ms / block interval, rounded up: 2 means broadcast before the second
 *      block after the crossing one was sealed, so the delegation lands in it), p50 and p99 (target p99 <= 2);
 *   3. where the time goes, per stage (ms from the crossing block, p50 / p99 over all refills) and per hop (the
 *      time between consecutive stages, p50 / p99): the watcher read the crossing block (`seen`), re-read its
 *      receivers (`reread`), began and finished its append (`append-start`, `append`), the processor applied
 *      the refill (order row seen: `applied`), the broadcaster began its allocation pass (its head read:
 *      `alloc-pass`), stored the signed set (order_signatures.created_at: `signed`), appended it (`alloc-append`),
 *      the processor applied it (`allocated`), the node accepted the delegation (`broadcast`), its block's
 *      time (`landed`), the order delivered (`confirmed`). Rows are watched through LISTEN order_work (the
 *      broadcaster's own wake-up) and a 25 ms poll; nothing is added to the services' paths.
 */
import { loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import type { Command } from '../services/domain/commands';
import { randomId } from '../services/domain/ids';
import { startBroadcaster } from '../services/delivery/broadcaster';
import { appendOnlyBus } from '../services/delivery/chain-deps';
import { commandBusFor } from '../services/platform/command-bus';
import { parseJson } from '../services/platform/json';
import { createRuntime } from '../services/runtime';
import { startRoles } from '../services/roles';
import { subscriptionRequestHash, type SubscriptionSpec } from '../services/domain/subscriptions/rules';
import { SubscriptionWatcher } from '../services/subscriptions/watcher';
import { startDevnet } from '../test/devnet/start-devnet';
import { newWallet } from '../test/support/identity';
import { dropWorld, newWorld } from '../test/support/world';
import { median, percentile, sorted } from './figures';

const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 10_000);
const ACTIVE = Number(process.env.BENCH_ACTIVE ?? 20);
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_ACCOUNT = 100;
const THRESHOLD = 30_000;
const AMOUNT = 40_000;
/** Energy one USDT transfer burns on the devnet (a transfer to an address already holding USDT). */
const TRANSFER_ENERGY = 14_650;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stats = (xs: number[]) => {
  const s = sorted(xs);
  return `p50 ${percentile(s, 50)}, p99 ${percentile(s, 99)}, max ${s[s.length - 1]} (n=${s.length})`;
};
const load = () => `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out: ${what}`);
    await sleep(200);
  }
}

/** Wall-clock ms at which each stage of one refill was first seen (absent: not seen); in path order. */
const stageNames = ['seen', 'reread', 'append-start', 'append', 'applied', 'alloc-pass', 'signed', 'alloc-append', 'allocated', 'broadcast', 'landed', 'confirmed'] as const;
type Stages = Partial<Record<(typeof stageNames)[number], number>>;

async function main(): Promise<void> {
  console.log(`start: ${load()}`);
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: String(BLOCK_MS) });
  const world = newWorld('benchsubs', { LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: process.env.BENCH_POLL_MS ?? '100' });
  const rt = await createRuntime(world.cfg);
  const bus = commandBusFor(rt, { timeoutMs: 30_000 });
  await bus.start();
  // Broadcast times: the broadcaster writes through the runtime's writer (roles.ts); the first acceptance per id.
  const acceptedAt = new Map<string, number>();
  const writer = rt.chain.writer;
  const broadcast = writer.broadcast.bind(writer);
  writer.broadcast = async (signedTx: string) => {
    const outcome = await broadcast(signedTx);
    const txId = (parseJson(signedTx) as { txID: string }).txID;
    if ((outcome.kind === 'accepted' || outcome.kind === 'duplicate') && !acceptedAt.has(txId)) acceptedAt.set(txId, Date.now());
    return outcome;
  };
  // The broadcaster's head reads (one per allocation pass with work) and its appends of signed sets, timed.
  const passStarts: number[] = [];
  const refBlock = writer.refBlock.bind(writer);
  writer.refBlock = async (lifetimeMs: number) => {
    passStarts.push(Date.now());
    return refBlock(lifetimeMs);
  };
  const allocAppendedAt = new Map<string, number>();
  const chainBus = appendOnlyBus(rt);
  const roles = await startRoles(rt, ['processor', 'relay', 'confirmer']);
  roles.push(await startBroadcaster({
    cfg: rt.cfg, pool: rt.pool, clock: rt.clock, chain: { reader: rt.chain.reader, writer, suppliers: rt.chain.suppliers },
    bus: {
      append: async (commands: Command[]) => {
        await chainBus.append(commands);
        const at = Date.now();
        for (const c of commands) if (c.type === 'order.allocate' && !allocAppendedAt.has(c.orderId)) allocAppendedAt.set(c.orderId, at);
      },
    },
  }));
  // Order rows seen at the broadcaster's own wake-up (NOTIFY order_work) as well as by the poll.
  const listener = await rt.pool.connect();
  let notified: (() => void) | undefined;
  listener.on('notification', () => notified?.());
  await listener.query('LISTEN order_work');
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
    for (const w of active) await devnet.post('/admin/faucet', { to: w.address, trx_sun: 1_000_000_000, usdt: 100_000_000 });
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
    const { rows: subRows } = await rt.pool.query('SELECT id, receiver FROM subscriptions WHERE receiver = ANY($1::text[])', [active.map((w) => w.address)]);
    const subOf = new Map<string, string>(subRows.map((r: { id: string; receiver: string }) => [r.receiver, r.id]));
    const activeSubs = [...subOf.values()];

    // The watcher's appends, timed: the first refill append per subscription in the current round.
    const appendedAt = new Map<string, { start: number; end: number }>();
    const watcherBus = {
      append: async (commands: Command[]) => {
        const start = Date.now();
        await bus.append(commands);
        const end = Date.now();
        for (const c of commands) if (c.type === 'subscription.refill' && !appendedAt.has(c.subscriptionId)) appendedAt.set(c.subscriptionId, { start, end });
      },
    };
    watcher = new SubscriptionWatcher({ cfg: rt.cfg, pool: rt.pool, bus: watcherBus, clock: rt.clock, reader: rt.chain.reader, prices: rt.prices });
    // Started as the role starts it: the head loop follows the chain while the first full pass reads every receiver.
    const t1 = Date.now();
    watcher.start();
    const firstPassDone = () => watcher?.fullPassMs.length ?? 0;
    await waitFor('first full pass', async () => firstPassDone() > 0, 600_000);
    console.log(`first pass (every receiver read once): ${Date.now() - t1} ms`);

    // The active receivers start at 0 energy: their first refill, delivered.
    const delivered = "status IN ('confirmed', 'active')";
    await waitFor('first refills delivered', async () => (await rt.pool.query(`SELECT count(*)::int AS n FROM orders WHERE ${delivered}`)).rows[0].n === ACTIVE, 180_000);
    watcher.applied.length = 0;
    if (watcher.fullPassMs) watcher.fullPassMs.length = 0;

    const usdtOf = new Map<string, any>();
    for (const w of active) usdtOf.set(w.address, await new TronWeb({ fullHost: devnet.url, privateKey: w.privateKey }).contract().at(devnet.accounts.usdt_contract));
    const freeEnergy = async (address: string) => {
      const r: any = await tronWeb.trx.getAccountResources(address);
      return Number(r.EnergyLimit ?? 0) - Number(r.EnergyUsed ?? 0);
    };
    const roundP50: number[] = [];
    const roundP99: number[] = [];
    const allStages: Array<Stages & { crossingAt: number }> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      appendedAt.clear();
      allocAppendedAt.clear();
      passStarts.length = 0;
      const roundStart = Date.now();
      // Each receiver sends just enough transfers (at once, so in one block) to fall below the threshold.
      const crossings = await Promise.all(active.map(async (w) => {
        const n = Math.floor(Math.max(0, (await freeEnergy(w.address)) - THRESHOLD) / TRANSFER_ENERGY) + 1;
        const usdt = usdtOf.get(w.address);
        const txids = await Promise.all(Array.from({ length: n }, (_, i) => usdt.transfer(devnet.accounts.faucet.address, 1_000 + i).send({ feeLimit: 50_000_000 }) as Promise<string>));
        return { receiver: w.address, subscriptionId: subOf.get(w.address) as string, txids };
      }));
      // Stages the processor records, polled every 25 ms until every refill is delivered.
      const seen = new Map<string, Stages & { orderId: string }>();
      const mark = (sub: string, orderId: string, stage: keyof Stages, at: number) => {
        const s = seen.get(sub) ?? { orderId };
        if (s[stage] === undefined) s[stage] = at;
        seen.set(sub, s);
      };
      await waitFor(`round ${round} refills delivered`, async () => {
        for (let i = 0; i < 8; i += 1) {
          // The notification's arrival is when the row was committed (near enough); the poll catches the rest.
          let at = Date.now();
          const woken = new Promise<void>((resolve) => {
            notified = () => {
              at = Date.now();
              resolve();
            };
          });
          const { rows } = await rt.pool.query(
            "SELECT id, subscription_id, status, allocations <> '[]'::jsonb AS allocated FROM orders WHERE subscription_id = ANY($1::text[]) AND created_at >= $2",
            [activeSubs, new Date(roundStart)],
          );
          at = Math.min(at, Date.now());
          for (const r of rows) {
            mark(r.subscription_id, r.id, 'applied', at);
            if (r.allocated) mark(r.subscription_id, r.id, 'allocated', at);
            if (r.status === 'confirmed' || r.status === 'active') mark(r.subscription_id, r.id, 'confirmed', at);
          }
          if ([...seen.values()].filter((s) => s.confirmed !== undefined).length === ACTIVE) return true;
          await Promise.race([sleep(25), woken]);
          notified = undefined;
        }
        return false;
      }, 180_000);

      const toBroadcastMs: number[] = [];
      const toBroadcastBlocks: number[] = [];
      const toLandedBlocks: number[] = [];
      for (const c of crossings) {
        const infos = await Promise.all(c.txids.map(async (id) => (await tronWeb.trx.getTransactionInfo(id)) as any));
        const crossing = infos.reduce((a, b) => (b.blockNumber > a.blockNumber ? b : a));
        const s = seen.get(c.subscriptionId) as Stages & { orderId: string };
        const { rows } = await rt.pool.query(
          "SELECT o.allocations, s.created_at AS signed_at FROM orders o JOIN order_signatures s ON s.order_id = o.id AND s.purpose = 'allocate' WHERE o.id = $1",
          [s.orderId],
        );
        const tx = (rows[0].allocations as any[]).find((a) => a.kind === 'delegate');
        const landed: any = await tronWeb.trx.getTransactionInfo(tx.txId);
        const block = watcher?.applied.find((a) => a.block === crossing.blockNumber);
        if (block) {
          s.seen = crossing.blockTimeStamp + block.seenLagMs;
          s.reread = crossing.blockTimeStamp + block.lagMs;
        }
        s['append-start'] = appendedAt.get(c.subscriptionId)?.start;
        s.append = appendedAt.get(c.subscriptionId)?.end;
        s.signed = rows[0].signed_at.getTime();
        s['alloc-pass'] = [...passStarts].reverse().find((t) => t <= (s.signed as number) && t >= (s.applied ?? 0));
        s['alloc-append'] = allocAppendedAt.get(s.orderId);
        s.broadcast = acceptedAt.get(tx.txId);
        s.landed = landed.blockTimeStamp;
        allStages.push({ ...s, crossingAt: crossing.blockTimeStamp });
        const ms = (s.broadcast as number) - crossing.blockTimeStamp;
        toBroadcastMs.push(ms);
        toBroadcastBlocks.push(Math.ceil(ms / BLOCK_MS));
        toLandedBlocks.push(landed.blockNumber - crossing.blockNumber);
      }
      roundP50.push(percentile(sorted(toBroadcastBlocks), 50));
      roundP99.push(percentile(sorted(toBroadcastBlocks), 99));
      console.log(`round ${round} (${load()}): crossing block -> refill delegation broadcast: ${stats(toBroadcastMs)} ms; ${stats(toBroadcastBlocks)} blocks; landed in crossing block + ${stats(toLandedBlocks)}`);
    }
    const lags = watcher.applied.map((a) => a.lagMs);
    const seenLags = watcher.applied.map((a) => a.seenLagMs);
    const reads = watcher.applied.map((a) => a.reads);
    console.log(`watcher lag per block (${BLOCK_MS} ms blocks, ${RECEIVERS} watched): block read ${stats(seenLags)} ms; receivers re-read ${stats(lags)} ms; receivers re-read per block: ${stats(reads)}; full pass (after the blocks) ${watcher.fullPassMs?.length ? stats(watcher.fullPassMs.map(Math.round)) : 'none'} ms`);
    console.log('where the time goes, p50 / p99 over every refill: ms from the crossing block to each stage | ms of the hop from the stage before');
    let before: (typeof stageNames)[number] | null = null;
    for (const stage of stageNames) {
      const xs = allStages.flatMap((s) => (s[stage] === undefined ? [] : [(s[stage] as number) - s.crossingAt]));
      const hops = allStages.flatMap((s) => {
        const from = before === null ? s.crossingAt : s[before];
        return s[stage] === undefined || from === undefined ? [] : [(s[stage] as number) - from];
      });
      const pair = (ys: number[]) => (ys.length ? `${percentile(sorted(ys), 50)} / ${percentile(sorted(ys), 99)}` : 'not seen');
      console.log(`  ${stage.padEnd(13)} ${pair(xs).padEnd(14)} | ${pair(hops)}`);
      before = stage;
    }
    console.log(`crossing -> broadcast, median of the ${ROUNDS} rounds: p50 ${median(roundP50)} blocks, p99 ${median(roundP99)} blocks (${load()})`);
    const { rows: extra } = await rt.pool.query('SELECT subscription_id FROM orders WHERE subscription_id IS NOT NULL GROUP BY subscription_id HAVING count(*) > $1', [1 + ROUNDS]);
    console.log(`subscriptions with more than the ${1 + ROUNDS} expected refills: ${extra.length}`);
  } finally {
    listener.release();
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
