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
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../services/platform/config';
import { createRuntime } from '../services/runtime';
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
/** Writes a CPU profile of this process over the delivery step (not start-up, not the latency step) there. */
const PROF_DIR = process.env.BENCH_PROF_DIR;
/** Milliseconds on a clock that processes of one machine share. */
const wallNow = () => performance.timeOrigin + performance.now();

interface BenchReceiver {
  url: string;
  /** The receiver process's CPU microseconds so far (0 when it runs in this process: counted there). */
  cpuMicros(): Promise<number>;
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
    return { url: receiver.url, ca: testCa().ca, cpuMicros: async () => 0, close: () => receiver.close() };
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
    cpuMicros: () => new Promise((resolve) => {
      const onCpu = (m: { cpu?: NodeJS.CpuUsage }) => {
        if (!m.cpu) return;
        child.off('message', onCpu);
        resolve(m.cpu.user + m.cpu.system);
      };
      child.on('message', onCpu);
      child.send({ cpu: true });
    }),
    close: () => new Promise((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.send({ stop: true });
    }),
  };
}

/**
 * CPU microseconds used so far by the PostgreSQL backends serving this world's database (its pool's
 * connections; /proc of the same machine). Connections that close between two readings are not counted.
 */
async function databaseCpuMicros(pool: { query(text: string): Promise<{ rows: Array<{ pid: number }> }> }): Promise<Map<number, number>> {
  const { rows } = await pool.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const ticks = 1_000_000 / 100; // USER_HZ
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * ticks);
    } catch {
      // not on this machine, or gone
    }
  }
  return out;
}

/** CPU between two readings; a backend that appeared in between counts whole (it started during the step). */
const cpuSince = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, us]) => sum + us - (before.get(pid) ?? 0), 0);

/** The inspector's CPU profiler over one step of this process; `stop` writes the profile and returns its path. */
async function startProfile(): Promise<{ stop(): Promise<string> }> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<any>((resolve, reject) => // eslint-disable-line @typescript-eslint/no-explicit-any
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      fs.mkdirSync(PROF_DIR!, { recursive: true });
      const file = path.join(PROF_DIR!, `webhooks-delivery-${process.pid}-${Date.now()}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      return file;
    },
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
  const cycles: Array<{ at: number; ms: number; written: number; claimed: number }> = [];
  const dispatcher = await startDispatcher({
    log: rt.log, codec: rt.codec, pool: rt.pool, clock: rt.clock, secrets: webhookSecretBox(rt.cfg), allowPrivate: true,
    concurrency: rt.cfg.WEBHOOK_SEND_CONCURRENCY, userAgent: 'energy-webhook/1', ca: receiver.ca,
    onDelivered: () => {
      delivered++;
      lastDeliveredAt = performance.now();
    },
    maxCycles: process.env.BENCH_CYCLES ? Number(process.env.BENCH_CYCLES) : undefined,
    onCycle: (c) => cycles.length < 100_000 && void cycles.push({ at: performance.now(), ...c }),
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
    const profiler = PROF_DIR ? await startProfile() : undefined;
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    const receiverCpu0 = await receiver.cpuMicros();
    const databaseCpu0 = await databaseCpuMicros(rt.pool);
    for (let i = 0; i < records.length; i += 500) await rt.log.send(t.topic, records.slice(i, i + 500));
    while (delivered < EVENTS) await new Promise((r) => setTimeout(r, 50));
    const seconds = (lastDeliveredAt - start) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const receiverCpu = (await receiver.cpuMicros()) - receiverCpu0;
    const databaseCpu = cpuSince(databaseCpu0, await databaseCpuMicros(rt.pool));
    if (profiler) console.log(`delivery step profile: ${await profiler.stop()}`);
    console.log(`deliveries: ${EVENTS} over ${ACCOUNTS} accounts in ${seconds.toFixed(2)} s = ${(EVENTS / seconds).toFixed(0)} deliveries/s (concurrency ${rt.cfg.WEBHOOK_SEND_CONCURRENCY})`);
    // CPU time is what a loaded machine rations: this process's (dispatcher with intake and sender) per delivery.
    const steady = cycles.filter((c) => c.at >= start && c.at <= lastDeliveredAt);
    const spread = (xs: number[]) => {
      const sorted = [...xs].sort((x, y) => x - y);
      return `p50 ${percentile(sorted, 50).toFixed(0)}, p90 ${percentile(sorted, 90).toFixed(0)}`;
    };
    console.log(`sender cycles: ${steady.length}, ms ${spread(steady.map((c) => c.ms))}; outcomes written per cycle ${spread(steady.map((c) => c.written))}; claimed per cycle ${spread(steady.map((c) => c.claimed))}`);
    console.log(`dispatcher process CPU per delivery: ${((cpu.user + cpu.system) / 1000 / EVENTS).toFixed(2)} ms (user ${(cpu.user / 1000 / EVENTS).toFixed(2)}, system ${(cpu.system / 1000 / EVENTS).toFixed(2)})`);
    // The rest of the machine's share: the receiver process and this world's PostgreSQL backends (Kafka's broker is shared and not counted).
    console.log(`receiver process CPU per delivery: ${(receiverCpu / 1000 / EVENTS).toFixed(2)} ms; PostgreSQL backends of this world: ${(databaseCpu / 1000 / EVENTS).toFixed(2)} ms`);

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
