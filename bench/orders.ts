/**
 * Orders benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/orders.ts
 * One process holds the api, processor, relay, broadcaster and confirmer (devnet, 300 ms blocks, its own
 * process) and the load generator. Prints, for signed POST /v1/orders (energy, 1h, to active receivers):
 *   1. orders/s sustained with BENCH_CONCURRENCY requests in flight for BENCH_SECONDS;
 *   2. p50/p99 answer time at fixed offered rates (BENCH_RATES per second, open loop);
 *   3. time from the 201 to order.confirmed published on account-events (BENCH_SAMPLES orders);
 * and the same 1. and 2. for the ceiling: a bare express endpoint doing only the signature check and one
 * PostgreSQL insert, in the same process, with the ratios.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../services/api/app';
import { signatureMatches, signRequest, timestampInWindow } from '../services/identity/request-signing';
import { commandBusFor } from '../services/platform/command-bus';
import { createRuntime } from '../services/platform/runtime';
import { startRoles } from '../services/roles';
import { startDevnet } from '../test/devnet/start-devnet';
import { signedHeaders, signUp } from '../test/support/identity';
import { dropWorld, newWorld } from '../test/support/world';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RATES = (process.env.BENCH_RATES ?? '25,50,100').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

type Send = (n: number) => Promise<{ status: number; body: any }>;

function poster(base: string, key: { id: string; secret: string }, receivers: string[], prefix: string): Send {
  return async (n) => {
    const raw = JSON.stringify({ resource: 'energy', amount: 10_000, tier: '1h', receiver: receivers[n % receivers.length], client_order_id: `${prefix}-${n}` });
    const res = await fetch(`${base}/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(key, 'POST', '/v1/orders', raw) }, body: raw });
    return { status: res.status, body: await res.json() };
  };
}

async function sustained(send: Send, start: number): Promise<{ rate: number; errors: number; next: number }> {
  let n = start;
  let done = 0;
  let errors = 0;
  const until = Date.now() + SECONDS * 1000;
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < until) {
      const r = await send(n++);
      if (r.status === 201) done += 1;
      else errors += 1;
    }
  }));
  return { rate: done / ((Date.now() - started) / 1000), errors, next: n };
}

async function offered(send: Send, rate: number, start: number): Promise<{ p50: number; p99: number; achieved: number; errors: number; next: number }> {
  const total = Math.round(rate * SECONDS);
  const times: number[] = [];
  let errors = 0;
  const t0 = Date.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / rate - Date.now();
    if (wait > 0) await sleep(wait);
    const sentAt = Date.now();
    inflight.push(send(start + i).then((r) => {
      if (r.status === 201) times.push(Date.now() - sentAt);
      else errors += 1;
    }));
  }
  await Promise.all(inflight);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), achieved: times.length / ((Date.now() - t0) / 1000), errors, next: start + total };
}

async function main(): Promise<void> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  const world = newWorld('benchorders', {
    LOG_LEVEL: 'error', TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: '100', BUDGET_READS_PER_SEC: '1000000', BUDGET_WRITES_PER_SEC: '1000000',
  });
  const rt = await createRuntime(world.cfg);
  const bus = commandBusFor(rt, { timeoutMs: 30_000 });
  await bus.start();
  const roles = await startRoles(rt, ['processor', 'relay', 'broadcaster', 'confirmer']);
  const listen = (app: express.Express) => new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const api = await listen(createApp({ rt, bus }) as express.Express);
  const ceilingSecret = 'bench-ceiling-secret';
  const ceilingApp = express();
  ceilingApp.post('/v1/orders', express.raw({ type: '*/*' }), async (req, res) => {
    const ts = String(req.header('x-api-timestamp'));
    const expected = signRequest(ceilingSecret, ts, 'POST', '/v1/orders', req.body as Buffer);
    if (!timestampInWindow(ts, Date.now()) || !signatureMatches(expected, String(req.header('x-api-sign')))) {
      res.status(401).json({ error: 'signature' });
      return;
    }
    const body = JSON.parse((req.body as Buffer).toString('utf8'));
    await rt.pool.query('INSERT INTO bench_ceiling (id, body) VALUES ($1, $2)', [body.client_order_id, body]);
    res.status(201).json({ id: body.client_order_id });
  });
  await rt.pool.query('CREATE TABLE bench_ceiling (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
  const ceiling = await listen(ceilingApp);
  const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  try {
    const customer = await signUp(url(api));
    const funded = await bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 10_000_000_000_000n, memo: 'bench' });
    if (funded.outcome !== 'applied') throw new Error('funding failed');
    const receivers = devnet.accounts.customers.map((c) => c.address);
    const service = poster(url(api), customer.key, receivers, 'bench');
    const bare = poster(url(ceiling), { id: 'key_bench', secret: ceilingSecret }, receivers, 'ceiling');
    await sustained(service, 1_000_000); // warm-up (SECONDS)

    const results: Record<string, { sustained: number; rates: Array<Awaited<ReturnType<typeof offered>>> }> = {};
    let n = 0;
    for (const [name, send] of [['service', service], ['ceiling', bare]] as const) {
      const s = await sustained(send, n);
      n = s.next;
      const rates: Array<Awaited<ReturnType<typeof offered>>> = [];
      for (const rate of RATES) {
        const r = await offered(send, rate, n);
        n = r.next;
        rates.push(r);
      }
      results[name] = { sustained: s.rate, rates };
      console.log(`${name}: sustained ${s.rate.toFixed(0)} orders/s with ${CONCURRENCY} in flight (${s.errors} non-201)`);
      RATES.forEach((rate, i) => console.log(`  offered ${rate}/s: achieved ${rates[i].achieved.toFixed(0)}/s, p50 ${rates[i].p50} ms, p99 ${rates[i].p99} ms (${rates[i].errors} non-201)`));
    }
    console.log(`ratio service/ceiling: sustained ${(results.service.sustained / results.ceiling.sustained).toFixed(3)}`);
    RATES.forEach((rate, i) => console.log(`  at ${rate}/s: p50 ${(results.service.rates[i].p50 / results.ceiling.rates[i].p50).toFixed(1)}x, p99 ${(results.service.rates[i].p99 / results.ceiling.rates[i].p99).toFixed(1)}x`));

    // 3. 201 -> order.confirmed published, once the backlog of the load above is delivered.
    for (;;) {
      const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM orders WHERE status = 'allocating'");
      if (rows[0].n === 0) break;
      await sleep(500);
    }
    const delays: number[] = [];
    for (let s = 0; s < SAMPLES; s++) {
      const r = await service(5_000_000 + s);
      const at = Date.now();
      for (;;) {
        const { rows } = await rt.pool.query(
          "SELECT published_at FROM outbox WHERE payload->>'type' = 'order.confirmed' AND payload->'data'->>'order_id' = $1 AND published_at IS NOT NULL", [r.body.id],
        );
        if (rows.length) {
          delays.push(rows[0].published_at.getTime() - at);
          break;
        }
        await sleep(10);
      }
    }
    delays.sort((a, b) => a - b);
    console.log(`201 -> order.confirmed published: p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms, max ${delays[delays.length - 1]} ms (${SAMPLES} orders; 300 ms blocks, solidified 1 block later, chain poll 100 ms)`);
  } finally {
    await new Promise((r) => api.close(r));
    await new Promise((r) => ceiling.close(r));
    await Promise.allSettled(roles.map((r) => r.stop()));
    await rt.pool.query('DROP TABLE IF EXISTS bench_ceiling').catch(() => undefined);
    await bus.stop();
    rt.pool.on('error', () => undefined);
    // The world's replay is verified on the way out, as in the tests.
    await dropWorld(world, rt).catch((err) => console.error(`teardown: ${(err as Error).message}`));
    await Promise.allSettled([rt.close(), devnet.stop()]);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
