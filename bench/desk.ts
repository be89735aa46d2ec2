/**
 * Transfer desk benchmark (not a test): a payment confirmed -> its order `active`, in blocks after the
 * confirming block (issue 32: p50 <= 2). Run against the test stack:
 *   make test-ready && infra/env/load.sh test -- npx tsx bench/desk.ts
 * One world in this process with the roles the desk needs (deposit watcher, processor, relay,
 * broadcaster, confirmer, scheduler, desk returner) at their default polls, and a devnet of its own
 * producing a block every BENCH_BLOCK_MS (3000, mainnet's pace). BENCH_ROUNDS (4) rounds of
 * BENCH_PER_ROUND (5) payments sent together from distinct wallets; each payment's order is polled
 * through GET /v1/transfer-desk/orders/{txid} every 50 ms, as a wallet app would.
 *
 * The confirming block of a payment in block n is the first block c at which the watcher may read n:
 * c - DEPOSIT_CONFIRMATIONS + 1 >= n and c - DEVNET_SOLIDIFY_DEPTH >= n. Two figures: the head's height
 * when the order was first seen active less c, and (that time - c's timestamp) / BENCH_BLOCK_MS.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { TronWeb } from 'tronweb';
import { createApp } from '../services/api/app';
import { DepositWatcher } from '../services/deposits/watcher';
import { commandBusFor } from '../services/platform/command-bus';
import { createRuntime } from '../services/runtime';
import { startRoles } from '../services/roles';
import { startDevnet } from '../test/devnet/start-devnet';
import { dropWorld, newWorld } from '../test/support/world';
import { percentile, sorted } from './figures';

const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 5);
const CONFIRMATIONS = 3;
const SOLIDIFY_DEPTH = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: String(BLOCK_MS), DEVNET_CUSTOMERS: String(PER_ROUND), DEVNET_SOLIDIFY_DEPTH: String(SOLIDIFY_DEPTH) });
  const world = newWorld('benchdesk', { LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, DEPOSIT_CONFIRMATIONS: String(CONFIRMATIONS), BUDGET_PUBLIC_READS_PER_IP_PER_SEC: '100000' });
  const rt = await createRuntime(world.cfg);
  const bus = commandBusFor(rt, { timeoutMs: 30_000 });
  await bus.start();
  const roles = await startRoles(rt, ['processor', 'relay', 'broadcaster', 'confirmer', 'scheduler', 'desk-returner']);
  const watcher = new DepositWatcher({ cfg: rt.cfg, pool: rt.pool, bus, clock: rt.clock });
  watcher.start();
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tronWeb = new TronWeb({ fullHost: devnet.url });
  try {
    const desk: any = await (await fetch(`${base}/v1/transfer-desk`)).json();
    const blocksLate: number[] = [];
    const heightsLate: number[] = [];
    // Per payment, ms after the confirming block's timestamp at which each order transition's command was made.
    const stages = new Map<string, number[]>();
    const landedBlocks: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const txids = await Promise.all(devnet.accounts.customers.map(async (c, i) => {
        const tw = new TronWeb({ fullHost: devnet.url, privateKey: c.private_key });
        const sent: any = await tw.trx.sendTransaction(desk.address, 2_000_000 + round * 1_000 + i);
        if (!sent.result) throw new Error(`payment refused: ${JSON.stringify(sent)}`);
        return sent.transaction.txID as string;
      }));
      await Promise.all(txids.map(async (txid) => {
        let activeAt = 0;
        let headAtActive = 0;
        const until = Date.now() + 120_000;
        while (Date.now() < until) {
          const res = await fetch(`${base}/v1/transfer-desk/orders/${txid}`);
          const order: any = res.status === 200 ? await res.json() : null;
          if (order?.status === 'active') {
            activeAt = Date.now();
            headAtActive = Number((await tronWeb.trx.getCurrentBlock()).block_header.raw_data.number);
            break;
          }
          if (order?.status === 'failed') throw new Error(`order failed: ${JSON.stringify(order.failure)}`);
          await sleep(50);
        }
        if (!activeAt) throw new Error(`order of ${txid} not active in 120 s`);
        const info: any = await tronWeb.trx.getTransactionInfo(txid);
        const confirming = Number(info.blockNumber) + Math.max(CONFIRMATIONS - 1, SOLIDIFY_DEPTH);
        const block: any = await tronWeb.trx.getBlockByNumber(confirming);
        const confirmedAt = Number(block.block_header.raw_data.timestamp);
        blocksLate.push((activeAt - confirmedAt) / BLOCK_MS);
        heightsLate.push(headAtActive - confirming);
        const order: any = await (await fetch(`${base}/v1/transfer-desk/orders/${txid}`)).json();
        const { rows } = await rt.pool.query(
          "SELECT payload->>'type' AS type, created_at FROM outbox WHERE destination = 'order-events' AND payload->'order'->>'id' = $1", [order.id],
        );
        for (const r of rows) stages.set(r.type, [...(stages.get(r.type) ?? []), r.created_at.getTime() - confirmedAt]);
        const landed: any = await tronWeb.trx.getTransactionInfo(order.delegate_hash);
        landedBlocks.push(Number(landed.blockNumber) - confirming);
      }));
    }
    const s = sorted(blocksLate);
    const h = sorted(heightsLate);
    const f = (x: number) => x.toFixed(2);
    console.log(`desk payment confirmed -> order active, after the confirming block (${BLOCK_MS} ms blocks, ${s.length} payments, ${PER_ROUND} per block):`);
    console.log(`  by height (head when active - confirming block): p50 ${percentile(h, 50)}, p90 ${percentile(h, 90)}, max ${h[h.length - 1]}`);
    for (const [type, ms] of stages) console.log(`  ${type}: p50 ${percentile(sorted(ms), 50)} ms after the confirming block`);
    console.log(`  delegation's block - confirming block: p50 ${percentile(sorted(landedBlocks), 50)}, max ${Math.max(...landedBlocks)}`);
    console.log(`  by time / BENCH_BLOCK_MS: p50 ${f(percentile(s, 50))}, p90 ${f(percentile(s, 90))}, max ${f(s[s.length - 1])}, min ${f(s[0])}`);
  } finally {
    await new Promise((r) => server.close(r));
    await watcher.stop();
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
