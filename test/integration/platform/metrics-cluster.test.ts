/**
 * Metrics that add up (issue 30, item 3), on a real process tree: the service with two API workers (node
 * cluster) and the processor, relay and dispatcher in the primary. Scraped repeatedly under load, every
 * counter and histogram series only grows, whichever worker answers; the HTTP counts equal the answers the
 * test got (both workers' counts, not one's); the primary's roles are in the same scrape.
 * The workers accept their connections themselves: a stopped primary does not keep a new one waiting.
 */
import { request } from 'node:http';
import { OPEN_BUDGETS, call, signUp } from '../../support/identity';
import { startService, type ServiceProcess } from '../../support/service-process';
import { dropWorld, newWorld, openBus, openRuntime, type World } from '../../support/world';

const PORT = String(Number(process.env.API_PORT ?? 13100) + 51);
const base = `http://127.0.0.1:${PORT}`;
let world: World;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  world = newWorld('metricscluster', OPEN_BUDGETS);
  await (await openRuntime(world)).close();
  service = startService(world, 'api,processor,relay,dispatcher', { API_WORKERS: '2', API_PORT: PORT });
  await service.ready;
  // The workers listen after the primary says it started.
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${base}/healthz`).then((r) => r.status, () => 0)) === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 180_000);
afterAll(async () => {
  await service?.kill();
  await dropWorld(world);
});

type Scrape = Map<string, number>;

/** Every counter and histogram sample of one scrape (series name with labels → value). */
async function scrape(): Promise<Scrape> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const monotonic = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (counter|histogram)$/gm)) monotonic.add(m[1]);
  const out: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    const at = line.lastIndexOf(' ');
    const series = line.slice(0, at);
    const name = series.replace(/\{.*$/, '').replace(/_(bucket|sum|count)$/, '');
    if (monotonic.has(name) || monotonic.has(series.replace(/\{.*$/, ''))) out.set(series, Number(line.slice(at + 1)));
  }
  return out;
}

const sum = (s: Scrape, prefix: string) => [...s].filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);

test('scraped under load, every counter only grows, and one scrape counts every worker and the primary', async () => {
  const SIGNUPS = 24;
  let done = false;
  const scrapes: Scrape[] = [];
  const scraping = (async () => {
    while (!done) {
      scrapes.push(await scrape());
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
  // Load: sign-ups (each a challenge, a verify, an account command through the processor and the relay, a
  // key) six at a time, and public reads beside them.
  const customers = [];
  for (let wave = 0; wave < SIGNUPS / 6; wave++) {
    const [made] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => signUp(base))),
      Promise.all(Array.from({ length: 10 }, () => call(base, 'GET', '/v1/prices'))),
    ]);
    customers.push(...made);
  }
  done = true;
  await scraping;
  expect(customers).toHaveLength(SIGNUPS);
  expect(scrapes.length).toBeGreaterThanOrEqual(3);

  // Whichever worker answered, no series ever went down (Prometheus would read it as a reset).
  for (let i = 1; i < scrapes.length; i++) {
    const dropped = [...scrapes[i - 1]].filter(([series, v]) => scrapes[i].has(series) && scrapes[i].get(series)! < v);
    expect(dropped).toEqual([]);
  }

  // Credits for every new account (commands the primary's processor applies, events its relay publishes).
  const rt = await openRuntime(world);
  try {
    const bus = await openBus(rt);
    await Promise.all(customers.map((c) => bus.submit({ type: 'balance.adjust', accountId: c.accountId, amountSun: 1_000_000n, memo: 'metrics' })));
    await bus.stop();
  } finally {
    await rt.close();
  }
  // The relay has published the events, and the last scrape counts what the test was answered: both workers.
  let last = await scrape();
  const credited = 'relay_events_published_total{destination="account-events",type="balance.credited"}';
  for (let i = 0; i < 150 && last.get(credited) !== SIGNUPS; i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await scrape();
  }
  expect(last.get('http_requests_total{method="POST",route="/v1/accounts",status="201"}')).toBe(SIGNUPS);
  expect(last.get('http_requests_total{method="POST",route="/v1/api-keys",status="201"}')).toBe(SIGNUPS);
  expect(last.get('http_requests_total{method="GET",route="/v1/prices",status="200"}')).toBe(10 * (SIGNUPS / 6));
  expect(last.get('http_request_duration_seconds_count{method="POST",route="/v1/accounts",status="201"}')).toBe(SIGNUPS);
  // The primary's roles are in the same scrape.
  expect(sum(last, 'processor_commands_applied_total')).toBeGreaterThanOrEqual(2 * SIGNUPS);
  expect(sum(last, 'relay_messages_published_total')).toBeGreaterThan(0);
  expect(last.get(credited)).toBe(SIGNUPS);
}, 240_000);

test('deployment-wide gauges are taken once, not summed over the workers', async () => {
  // The roles' first heartbeat is written within 5 s of their start.
  let text = await (await fetch(`${base}/metrics`)).text();
  for (let i = 0; i < 100 && !/^role_progress_age_seconds\{role="ledger-processor"\} /m.test(text); i++) {
    await new Promise((r) => setTimeout(r, 200));
    text = await (await fetch(`${base}/metrics`)).text();
  }
  const lag = text.split('\n').filter((l) => l.startsWith('consumer_group_lag_records{'));
  // Three groups' partitions (3 each in a test world), each once.
  expect(new Set(lag.map((l) => l.slice(0, l.lastIndexOf(' ')))).size).toBe(lag.length);
  expect(lag.filter((l) => l.includes('group="ledger-processor"'))).toHaveLength(3);
  expect(text).toMatch(/^outbox_backlog_rows \d+$/m);
  expect(text).toMatch(/^role_progress_age_seconds\{role="ledger-processor"\} /m);
});

test('a process running only background roles serves its own metrics on METRICS_PORT', async () => {
  const metricsPort = String(Number(process.env.API_PORT ?? 13100) + 53);
  const watcher = startService(world, 'deposit-watcher', { METRICS_PORT: metricsPort, DEPOSIT_POLL_MS: '100' });
  try {
    await watcher.ready;
    // A label-less gauge reads 0 before it is set: the chain calls of a pass are what show the role ran.
    const calls = /^chain_call_duration_seconds_count\{method="wallet(solidity)?\/[a-z]+",outcome="ok"\} [1-9]/m;
    let text = '';
    for (let i = 0; i < 150 && !calls.test(text); i++) {
      text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text(), () => '');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Its chain calls and its own role's gauge, set by its passes over the chain.
    expect(text).toMatch(calls);
    expect(text).toMatch(/^deposit_watcher_block_lag \d+$/m);
  } finally {
    await watcher.kill();
  }
}, 120_000);

test('the workers accept their own connections: with the primary stopped, a new connection is still answered', async () => {
  const primary = service!.child.pid!;
  process.kill(primary, 'SIGSTOP');
  try {
    // A connection of its own (no keep-alive socket from before), so it has to be accepted now.
    const answers = await Promise.all(Array.from({ length: 4 }, () => new Promise<number>((resolve) => {
      const req = request(`${base}/v1/prices`, { agent: false, timeout: 5_000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
      req.end();
    })));
    expect(answers).toEqual([200, 200, 200, 200]);
  } finally {
    process.kill(primary, 'SIGCONT');
  }
});
