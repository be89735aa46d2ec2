/**
 * The client as an integrator gets it: `npm pack` of clients/typescript, the tarball installed into an
 * empty folder, then used from there (never from this repository's sources) against the real stack: an
 * ES module places an order and polls it until active, a CommonJS script reclaims it, and the chain is read
 * after each (the delegation there, then gone). A TypeScript file compiled against the installed package
 * proves the declarations ship and are precise (a wrong call must be a type error).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TronWeb } from 'tronweb';
import { newWallet, type Customer } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { delegatedEnergy, fundedCustomer, orderRow, startDeliveryStack, type OrderStack } from '../../support/orders';

const run = promisify(execFile);
const repo = path.resolve(__dirname, '../../..');
const clientDir = path.join(repo, 'clients/typescript');

let stack: OrderStack;
let customer: Customer;
let consumer: string;
let tronWeb: TronWeb;

const energyLimit = async (address: string) => Number((await tronWeb.trx.getAccountResources(address)).EnergyLimit ?? 0);

/** Runs `file` with the pinned node in the consumer folder; its stdout's last line as JSON. */
async function node(file: string, args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await run(process.execPath, [file, ...args], { cwd: consumer, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

beforeAll(async () => {
  consumer = mkdtempSync(path.join(tmpdir(), 'energy-client-consumer-'));
  // The tarball exactly as `npm publish` would upload it (prepack builds dist/), installed as a stranger would.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', consumer], { cwd: clientDir, encoding: 'utf8', maxBuffer: 16 << 20 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  expect(packed.files.map((f) => f.path)).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.mjs', 'dist/index.cjs', 'dist/types/src/index.d.ts', 'generated/openapi.json']));
  // No sources, tests or build scripts in the package.
  expect(packed.files.filter((f) => f.path.startsWith('src/') || f.path.startsWith('scripts/'))).toEqual([]);
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(consumer, packed.filename)], { cwd: consumer, encoding: 'utf8' });

  stack = await startDeliveryStack('clientpackage', 1);
  tronWeb = new TronWeb({ fullHost: stack.devnet.url });
  customer = await fundedCustomer(stack, 100_000_000_000n);
}, 300_000);

afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

const PLACE_AND_POLL_ESM = `
import { createEnergyClient, dataOf, CLIENT_VERSION } from '@energy-rental/client';
const [receiver] = process.argv.slice(2);
const energy = createEnergyClient({ baseUrl: process.env.BASE, apiKey: { id: process.env.KEY_ID, secret: process.env.KEY_SECRET }, userAgent: 'package-test/1' });
const { order, created } = await energy.placeOrder({ resource: 'energy', amount: 65000, tier: '1h', receiver, client_order_id: 'pkg-esm-1' });
const seen = [order.status];
let current = order;
let polls = 0;
// Delivery may finish inside the POST (synchronous delivery) or later: read it back either way.
do {
  if (polls > 0) await new Promise((r) => setTimeout(r, 200));
  current = await dataOf(energy.api.GET('/v1/orders/{orderId}', { params: { path: { orderId: order.id } } }));
  polls++;
  if (seen.at(-1) !== current.status) seen.push(current.status);
// Delivered and verified on chain (order.confirmed): only then is there something to reclaim.
} while (!(current.status === 'active' && current.confirm_status === 'confirmed') && polls < 300);
const balance = await dataOf(energy.api.GET('/v1/balance'));
console.log(JSON.stringify({ id: order.id, created, seen, polls, confirm: current.confirm_status, delegateHash: current.delegate_hash, version: CLIENT_VERSION, balanceType: typeof balance.balance_sun, available: String(balance.available_sun) }));
`;

const RECLAIM_CJS = `
const { createEnergyClient, dataOf, isApiError } = require('@energy-rental/client');
(async () => {
  const [orderId] = process.argv.slice(2);
  const energy = createEnergyClient({ baseUrl: process.env.BASE, apiKey: { id: process.env.KEY_ID, secret: process.env.KEY_SECRET } });
  const first = await energy.api.POST('/v1/orders/{orderId}/reclaim', { params: { path: { orderId } }, headers: { 'Idempotency-Key': 'pkg-reclaim-1' } });
  if (!first.data) throw new Error('reclaim refused: ' + first.response.status + ' ' + JSON.stringify(first.error));
  let current = first.data;
  for (const until = Date.now() + 60000; current.status !== 'reclaimed' && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 200));
    current = await dataOf(energy.api.GET('/v1/orders/{orderId}', { params: { path: { orderId } } }));
  }
  // Nothing is left to reclaim on a missing order: the error arrives typed, by slug and by code.
  const missing = await dataOf(energy.api.POST('/v1/orders/{orderId}/reclaim', { params: { path: { orderId: 'ord_missing' } } })).catch((e) => e);
  console.log(JSON.stringify({ firstStatus: first.response.status, status: current.status, reclaimHash: current.reclaim_hash, missing: [isApiError(missing, 'not_found'), isApiError(missing, 3001), missing.status] }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

const TYPED_CONSUMER_TS = `
import { createEnergyClient, isApiError, type Int64, type Order, type ErrorSlug } from '@energy-rental/client';
const energy = createEnergyClient({ baseUrl: 'http://127.0.0.1:1', apiKey: { id: 'key_x', secret: 'y' } });
export async function use(): Promise<Int64> {
  const { order } = await energy.placeOrder({ resource: 'energy', amount: 65000, tier: '1h', receiver: 'T...' });
  const total: Int64 = order.total_amount_sun;
  const slug: ErrorSlug = 'insufficient_funds';
  // @ts-expect-error: not a resource the API sells
  await energy.placeOrder({ resource: 'gas', receiver: 'T...' });
  // @ts-expect-error: not a slug the API answers
  isApiError(null, 'no_such_slug');
  const err: unknown = null;
  if (isApiError(err, 'insufficient_funds')) {
    const narrowed: 'insufficient_funds' = err.slug;
    void narrowed;
  }
  const o: Order['status'] = 'active';
  return o && slug ? total : 0;
}
`;

test('npm pack gives a package that installs in an empty folder and places, polls and reclaims an order on the real stack', async () => {
  writeFileSync(path.join(consumer, 'place.mjs'), PLACE_AND_POLL_ESM);
  writeFileSync(path.join(consumer, 'reclaim.cjs'), RECLAIM_CJS);
  const env = { BASE: stack.base, KEY_ID: customer.key.id, KEY_SECRET: customer.key.secret };
  const receiver = (await newWallet()).address;

  const placed = await node('place.mjs', [receiver], env);
  expect(placed).toMatchObject({ created: true, version: '0.2.0', balanceType: 'number' });
  expect([placed.seen.at(-1), placed.confirm]).toEqual(['active', 'confirmed']);
  expect(placed.polls).toBeGreaterThan(0);
  expect(placed.delegateHash).toMatch(/^[0-9a-f]{64}$/);
  // The chain is the truth: the receiver holds delegated energy from the stake pool.
  const from = (await orderRow(stack, placed.id)).allocations.find((a: { kind: string }) => a.kind === 'delegate').from;
  expect(await delegatedEnergy(stack, from, receiver)).toBeGreaterThan(0n);
  expect(await energyLimit(receiver)).toBeGreaterThanOrEqual(65_000);

  const reclaimed = await node('reclaim.cjs', [placed.id], env);
  expect(reclaimed).toMatchObject({ status: 'reclaimed', reclaimHash: expect.stringMatching(/^[0-9a-f]{64}$/), missing: [true, true, 404] });
  expect([200, 202]).toContain(reclaimed.firstStatus);
  expect(await delegatedEnergy(stack, from, receiver)).toBe(0n);
  expect(await energyLimit(receiver)).toBe(0);
}, 240_000);

test('the installed package type-checks from TypeScript (NodeNext) and its types are precise', async () => {
  // The same code as a CommonJS (.ts in a package without "type") and an ES module (.mts) consumer.
  writeFileSync(path.join(consumer, 'use.ts'), TYPED_CONSUMER_TS);
  writeFileSync(path.join(consumer, 'use.mts'), TYPED_CONSUMER_TS);
  writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [], lib: ['es2022', 'dom'] },
    files: ['use.ts', 'use.mts'],
  }));
  const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer, encoding: 'utf8' }).then(() => 'ok', (e: { stdout: string }) => e.stdout);
  expect(result).toBe('ok');
  // Only what was installed: the package and its one dependency.
  expect(readdirSync(path.join(consumer, 'node_modules')).sort()).toEqual(expect.arrayContaining(['@energy-rental', 'openapi-fetch']));
}, 120_000);
