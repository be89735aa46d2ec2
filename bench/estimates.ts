/**
 * POST /v1/estimates with 100 items (contract.md section 11): p50/p99/max of the answer and the node calls
 * per item, against an order stack of its own (API, processor, relay in this process) and a devnet of its own
 * (blocks every BENCH_BLOCK_MS, 3 s by default as on mainnet; USDT with a dynamic energy factor of 34 000).
 * Two workloads, each BENCH_REQUESTS (100) signed requests per round, BENCH_CONCURRENCY (1) at a time:
 *  - `cold`: every request names 100 transfers never asked before (20 funded senders x 5, 100 fresh
 *    receivers, its own amounts), so every simulation and every receiver balance is a node read;
 *  - `repeat`: the same 100 transfers each time (a bot polling its plan), shared per block by the cache.
 * Side by side in one run, BENCH_ROUNDS (3) rounds alternating: `per-item` reads each receiver's balance by its
 * own triggerconstantcontract (as before TRON_JSONRPC_URL), `batched` reads a request's balances as one
 * JSON-RPC eth_call batch; the medians of the rounds are printed last.
 *
 *   infra/env/load.sh test -- npx tsx bench/estimates.ts
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { TronWeb } from 'tronweb';
import { transferFactsFor } from '../services/chain/transfer-facts';
import { eventually } from '../test/devnet/start-devnet';
import { fundedCustomer, orderCall, startOrderStack } from '../test/support/orders';
import { percentile } from './figures';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const BLOCK_MS = process.env.BENCH_BLOCK_MS ?? '3000';
const SENDERS = 20;

const randomAddress = () => TronWeb.address.fromHex('41' + randomBytes(20).toString('hex'));

async function main(): Promise<void> {
  const stack = await startOrderStack('benchestimates', {}, { DEVNET_BLOCK_MS: BLOCK_MS });
  try {
    const usdt = stack.devnet.accounts.usdt_contract;
    await stack.devnet.post('/admin/energy-factor', { contract: usdt, energy_factor: 34_000 });
    const customer = await fundedCustomer(stack, 0n);
    const senders: string[] = [];
    for (let i = 0; i < SENDERS; i++) {
      const address = randomAddress();
      const funded = await stack.devnet.post('/admin/faucet', { to: address, trx_sun: 1_000_000_000, usdt: 1_000_000_000 });
      senders.push(address);
      if (i === SENDERS - 1) {
        await eventually(async () => {
          const info: any = await stack.devnet.post('/wallet/gettransactioninfobyid', { value: funded.txids[1] });
          return info.id;
        }, 30_000);
      }
    }
    const holders = stack.devnet.accounts.customers.map((c) => c.address);
    const facts = transferFactsFor(stack.rt.chain.reader);

    const workloads: Record<string, (n: number) => unknown[]> = {
      cold: (n) => Array.from({ length: 100 }, (_, i) => ({ from: senders[i % SENDERS], to: randomAddress(), amount: String(1_000_000 + n * 100 + i) })),
      repeat: () => Array.from({ length: 100 }, (_, i) => ({ from: senders[i % SENDERS], to: i % 2 ? holders[i % holders.length] : senders[(i + 1) % SENDERS], amount: 1_000_000 + i })),
    };
    console.log(`POST /v1/estimates, 100 items, ${REQUESTS} requests per workload, variant and round, ${ROUNDS} rounds, concurrency ${CONCURRENCY}, devnet blocks every ${BLOCK_MS} ms`);
    if (!stack.rt.chain.reader.jsonRpc) throw new Error('TRON_JSONRPC_URL is not set: the batched variant cannot run (the test profile sets it)');
    const rows: Array<{ variant: string; workload: string; p50: number; p99: number; max: number; rate: number; perItem: number; failures: number }> = [];
    let offset = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const variant of ['per-item', 'batched']) {
        facts.batchBalances = variant === 'batched';
        for (const [name, itemsOf] of Object.entries(workloads)) {
          // Warm-up: connections, the validator, the JIT (and, for repeat, this variant's first block).
          for (let i = 0; i < 5; i++) await orderCall(stack, customer, 'POST', '/v1/estimates', { items: itemsOf(-1 - offset - i) });
          const base = (offset += 10);
          const calls0 = facts.nodeCalls;
          const times: number[] = [];
          let next = 0;
          let failures = 0;
          const started = performance.now();
          await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
            while (next < REQUESTS) {
              const n = next++;
              const body = { items: itemsOf(base * 1000 + n) };
              const t0 = performance.now();
              const reply = await orderCall(stack, customer, 'POST', '/v1/estimates', body);
              times.push(performance.now() - t0);
              if (reply.status !== 200 || reply.body.data.length !== 100 || reply.body.data.some((e: any) => !e.ok)) failures += 1;
            }
          }));
          const seconds = (performance.now() - started) / 1000;
          times.sort((a, b) => a - b);
          const row = {
            variant, workload: name, p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(...times),
            rate: REQUESTS / seconds, perItem: (facts.nodeCalls - calls0) / (REQUESTS * 100), failures,
          };
          rows.push(row);
          console.log(
            `round ${round} ${variant.padEnd(8)} ${name.padEnd(7)} p50 ${row.p50.toFixed(1)} ms  p99 ${row.p99.toFixed(1)} ms  max ${row.max.toFixed(1)} ms  ` +
            `${row.rate.toFixed(1)} req/s  node calls per item ${row.perItem.toFixed(2)}  failed answers ${failures}`,
          );
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`medians of ${ROUNDS} rounds (load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    for (const workload of Object.keys(workloads)) {
      for (const variant of ['per-item', 'batched']) {
        const mine = rows.filter((r) => r.variant === variant && r.workload === workload);
        console.log(
          `${workload.padEnd(7)} ${variant.padEnd(8)} p50 ${median(mine.map((r) => r.p50)).toFixed(1)} ms  p99 ${median(mine.map((r) => r.p99)).toFixed(1)} ms  ` +
          `max ${median(mine.map((r) => r.max)).toFixed(1)} ms  ${median(mine.map((r) => r.rate)).toFixed(1)} req/s  node calls per item ${median(mine.map((r) => r.perItem)).toFixed(2)}  failed ${mine.reduce((a, r) => a + r.failures, 0)}`,
        );
      }
    }
  } finally {
    await stack.stop();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
