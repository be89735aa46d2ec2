/**
 * Webhook dispatcher benchmark (not a test). Run against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/webhooks.ts
 * Prints, in one run on one machine, with a local HTTPS receiver that answers 200 at once (a process of its
 * own, bench/webhook-receiver.ts, as a receiver is another machine; BENCH_RECEIVER=inprocess puts it in this
 * process, beside the dispatcher, as before 2026-11-23), sending concurrency BENCH_CONCURRENCY (default 64):
 *   1. deliveries per second: BENCH_EVENTS events (default 2000, over 200 accounts) written straight onto
 *      account-events, from the first record to the last delivery recorded;
 *   2. latency p50/p99 from event committed (the processor's answer to a credit) to delivery answered, at
 *      BENCH_RATE credits per second (default 50) for BENCH_SECONDS (default 5), through the whole pipeline.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../services/platform/config';
import { createRuntime } from '../services/platform/runtime';
import { openBus } from '../test/support/world';
import { startRoles } from '../services/roles';
import { startDispatcher } from '../services/dispatcher/dispatcher';
import { webhookSecretBox } from '../services/webhooks/secrets';
import { parseJson } from '../services/platform/json';
import { startReceiver, testCa } from '../test/support/https-receiver';
import { createAccount, insertEndpoint } from '../test/support/webhooks';
import { dropWorld, newWorld } from '../test/support/world';
import { percentile } from './figures';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '64';
const IN_PROCESS = process.env.BENCH_RECEIVER === 'inprocess';
const ACCOUNTS = 200;
/** Milliseconds on a clock that processes of one machine share. */
const wallNow = () => performance.timeOrigin + performance.now();

interface BenchReceiver {
  url: string;
  /** The CA the receiver's certificate chains to. */
  ca: Buffer;
  close(): Promise<void>;
}

/** The receiver; `arrivals` gets each request's key and arrival time (wallNow). */
async function openReceiver(arrivals: Map<string, number>): Promise<BenchReceiver> {
  if (IN_PROCESS) {
    const receiver = await startReceiver((r) => {
      const env = parseJson(r.raw.toString()) as { event_id: string; data: { reference_id?: string } };
      arrivals.set(env.data.reference_id ?? env.event_id, wallNow());
      return { status: 200 };
    });
    return { url: receiver.url, ca: testCa().ca, close: () => receiver.close() };
  }
  const child = fork(path.join(__dirname, 'webhook-receiver.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url, ca } = await new Promise<{ url: string; ca: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
    child.on('message', (m: { url?: string; ca?: string; arrivals?: Array<[string, number]> }) => {
      if (m.url && m.ca) resolve({ url: m.url, ca: m.ca });
      for (const [key, at] of m.arrivals ?? []) arrivals.set(key, at);
    });
  });
  return {
    url,
    ca: Buffer.from(ca),
    close: () => new Promise((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.send({ stop: true });
    }),
  };
}


async function main(): Promise<void> {
  console.log(`cores ${os.cpus().length}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}, receiver ${IN_PROCESS ? 'in this process' : 'own process'}`);
  const world = newWorld('benchwebhooks', { LOG_LEVEL: 'error', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_SEND_CONCURRENCY: CONCURRENCY });
  const rt = await createRuntime(parseConfig(world.env));
  const bus = await openBus(rt);
  const arrivals = new Map<string, number>();
  const receiver = await openReceiver(arrivals);
  const roles = await startRoles(rt, ['processor', 'relay']);
  let delivered = 0;
  let lastDeliveredAt = 0;
  const dispatcher = await startDispatcher({
    log: rt.log, codec: rt.codec, pool: rt.pool, clock: rt.clock, secrets: webhookSecretBox(rt.cfg), allowPrivate: true,
    concurrency: rt.cfg.WEBHOOK_SEND_CONCURRENCY, userAgent: 'energy-webhook/1', ca: receiver.ca,
    onDelivered: () => {
      delivered++;
      lastDeliveredAt = performance.now();
    },
  });
  try {
    // 1. Throughput from records already on the log's way in.
    const accounts = Array.from({ length: ACCOUNTS }, () => `acc_${randomUUID().replace(/-/g, '').slice(0, 24)}`);
    for (const a of accounts) await insertEndpoint(rt, a, receiver.url);
    const t = rt.codec.topics.accountEvents;
    const records = [];
    for (let i = 0; i < EVENTS; i++) {
      const account = accounts[i % ACCOUNTS];
      records.push({
        key: await rt.registry.encode(t.keyId, { account_id: account }),
        value: await rt.registry.encode(t.valueId, {
          event_id: `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`, event: 'deposit_address.rotated', event_version: 1,
          created_at: BigInt(Date.now()), account_id: account, network: rt.cfg.NETWORK,
          data: { 'energy.rental.events.DepositAddressRotated': { address: 'TBench', retired_address: null, retired_credit_until: null, rotated_at: new Date().toISOString() } },
        }),
      });
    }
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < records.length; i += 500) await rt.log.send(t.topic, records.slice(i, i + 500));
    while (delivered < EVENTS) await new Promise((r) => setTimeout(r, 50));
    const seconds = (lastDeliveredAt - start) / 1000;
    const cpu = process.cpuUsage(cpu0);
    console.log(`deliveries: ${EVENTS} over ${ACCOUNTS} accounts in ${seconds.toFixed(2)} s = ${(EVENTS / seconds).toFixed(0)} deliveries/s (concurrency ${rt.cfg.WEBHOOK_SEND_CONCURRENCY})`);
    // CPU time is what a loaded machine rations: this process's (dispatcher with intake and sender) per delivery.
    console.log(`dispatcher process CPU per delivery: ${((cpu.user + cpu.system) / 1000 / EVENTS).toFixed(2)} ms (user ${(cpu.user / 1000 / EVENTS).toFixed(2)}, system ${(cpu.system / 1000 / EVENTS).toFixed(2)})`);

    // 2. Latency through the whole pipeline at a fixed offered rate.
    const live = [];
    for (let i = 0; i < 20; i++) {
      const a = await createAccount(rt, bus);
      await insertEndpoint(rt, a, receiver.url);
      live.push(a);
    }
    const committed = new Map<string, number>();
    const submits: Array<Promise<void>> = [];
    const total = RATE * SECONDS;
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      submits.push(bus.submit({ type: 'balance.adjust', accountId: live[i % live.length], amountSun: 1n, memo: 'bench' }).then((res) => {
        committed.set(res.body!.journal_id as string, wallNow());
      }));
    }
    await Promise.all(submits);
    const until = performance.now() + 30_000;
    while ([...committed.keys()].some((j) => !arrivals.has(j)) && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
    const latencies = [...committed].filter(([j]) => arrivals.has(j)).map(([j, at]) => arrivals.get(j)! - at).sort((a, b) => a - b);
    console.log(`committed → answered at ${RATE}/s for ${SECONDS} s: n=${latencies.length}/${total} p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`);
    console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await dispatcher.stop();
    await Promise.allSettled(roles.map((r) => r.stop()));
    await receiver.close();
    await bus.stop();
    await rt.close();
    await dropWorld(world);
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
