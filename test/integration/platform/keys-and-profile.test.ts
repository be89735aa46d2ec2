/**
 * Keys where they belong and no silent development defaults (issue 30, item 6), on real processes: API
 * workers are started without the stake-pool keys in their environment (the primary that was given them
 * keeps them only for roles that sign); a process outside the local and test profiles refuses to start
 * without NETWORK, and on mainnet without SERVICE_DOMAIN and DEPOSIT_XPUB, naming each.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { devnetKey } from '../../../services/chain/pool-keys';
import { startRefused, startService, type ServiceProcess } from '../../support/service-process';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

/** A port of this engineer's range (API_PORT + 50): cluster workers share one fixed port. */
const WORKER_PORT = String(Number(process.env.API_PORT ?? 13100) + 50);
let world: World;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  world = newWorld('keysprofile');
  await (await openRuntime(world)).close();
}, 120_000);
afterAll(async () => {
  await service?.kill();
  await dropWorld(world);
});

function environOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

/** The cluster workers among a process's children (node cluster marks each with NODE_UNIQUE_ID). */
function workersOf(pid: number): number[] {
  return childrenOf(pid).filter((child) => {
    try {
      return environOf(child).has('NODE_UNIQUE_ID');
    } catch {
      return false; // gone already
    }
  });
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    out.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  }
  return out;
}

test('API workers hold no stake-pool key: their environment has none, though the primary was given one', async () => {
  const key = devnetKey('keys-and-profile', 'pool:0');
  service = startService(world, 'api', { API_WORKERS: '2', API_PORT: WORKER_PORT, POOL_PRIVATE_KEYS: key });
  await service.ready;
  const primary = service.child.pid!;
  let workers: number[] = [];
  for (let i = 0; i < 200 && workers.length < 2; i++) {
    workers = workersOf(primary);
    if (workers.length < 2) await new Promise((r) => setTimeout(r, 100));
  }
  expect(workers).toHaveLength(2);
  // The primary's own start environment is what it was given (the test can see the key there) ...
  expect(environOf(primary).get('POOL_PRIVATE_KEYS')).toBe(key);
  // ... the workers were started without it, yet with the rest of the configuration.
  for (const pid of workers) {
    const env = environOf(pid);
    expect(env.has('POOL_PRIVATE_KEYS')).toBe(false);
    expect(env.get('DATABASE_URL')).toBe(world.env.DATABASE_URL);
  }
  // And they serve.
  let answer = 0;
  for (let i = 0; i < 300 && answer !== 200; i++) {
    answer = await fetch(`http://127.0.0.1:${WORKER_PORT}/healthz`).then((r) => r.status, () => 0);
    if (answer !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  expect(answer).toBe(200);
  await service.kill();
  service = undefined;
}, 120_000);

test('outside the local and test profiles an unset NETWORK refuses the start, naming it', async () => {
  const refused = await startRefused(world, { STACK_PROFILE: undefined, NETWORK: undefined });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/NETWORK: required/);
  expect(refused.output).not.toMatch(/"msg":"started"/);
}, 60_000);

test('mainnet refuses to start without SERVICE_DOMAIN and DEPOSIT_XPUB, both named at once', async () => {
  const refused = await startRefused(world, { STACK_PROFILE: 'production', NETWORK: 'mainnet', SERVICE_DOMAIN: undefined, DEPOSIT_XPUB: undefined });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/SERVICE_DOMAIN: required when NETWORK is mainnet/);
  expect(refused.output).toMatch(/DEPOSIT_XPUB: required when NETWORK is mainnet/);
}, 60_000);
