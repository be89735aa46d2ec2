/**
 * POST /v1/estimates with 100 items (contract.md section 11): p50/p99/max of the answer and the node calls
 * per item, against an order stack of its own (API, processor, relay in this process) and a devnet of its own
 * (blocks every BENCH_BLOCK_MS, 3 s by default as on mainnet; USDT with a dynamic energy factor of 34 000).
 * Two workloads, each BENCH_REQUESTS (200) signed requests, BENCH_CONCURRENCY (1) at a time:
 *  - `cold`: every request names 100 transfers never asked before (20 funded senders x 5, 100 fresh
 *    receivers, its own amounts), so every simulation and every receiver balance is a node call;
 *  - `repeat`: the same 100 transfers each time (a bot polling its plan), shared per block by the cache.
 *
 *   infra/env/load.sh test -- npx tsx bench/estimates.ts
 */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { transferFactsFor } from '../services/chain/transfer-facts';
import { eventually } from '../test/devnet/start-devnet';
import { fundedCustomer, orderCall, startOrderStack } from '../test/support/orders';
import { percentile } from './figures';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
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
    console.log(`POST /v1/estimates, 100 items, ${REQUESTS} requests per workload, concurrency ${CONCURRENCY}, devnet blocks every ${BLOCK_MS} ms`);
    for (const [name, itemsOf] of Object.entries(workloads)) {
      // Warm-up: connections, the validator, the JIT.
      for (let i = 0; i < 5; i++) await orderCall(stack, customer, 'POST', '/v1/estimates', { items: itemsOf(-1 - i) });
      const calls0 = facts.nodeCalls;
      const times: number[] = [];
      let next = 0;
      let failures = 0;
      const started = performance.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) {
          const n = next++;
          const body = { items: itemsOf(n) };
          const t0 = performance.now();
          const reply = await orderCall(stack, customer, 'POST', '/v1/estimates', body);
          times.push(performance.now() - t0);
          if (reply.status !== 200 || reply.body.data.length !== 100 || reply.body.data.some((e: any) => !e.ok)) failures += 1;
        }
      }));
      const seconds = (performance.now() - started) / 1000;
      times.sort((a, b) => a - b);
      const calls = facts.nodeCalls - calls0;
      console.log(
        `${name.padEnd(7)} p50 ${percentile(times, 50).toFixed(1)} ms  p99 ${percentile(times, 99).toFixed(1)} ms  max ${Math.max(...times).toFixed(1)} ms  ` +
        `${(REQUESTS / seconds).toFixed(1)} req/s  node calls per item ${(calls / (REQUESTS * 100)).toFixed(2)} (${calls} in all)  failed answers ${failures}`,
      );
    }
  } finally {
    await stack.stop();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
