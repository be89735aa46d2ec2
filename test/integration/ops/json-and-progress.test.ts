/**
 * The ops tool for scripts and for people: every command's `--json` result on stdout (one object), and the
 * long commands' progress (done/total, rate, time left) on stderr, as JSON objects under --json. Against a
 * real world: a signed-up customer (a sealed API-key secret), an order on the devnet.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { newWallet } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, orderUntil, postOrder, startDeliveryStack, type OrderStack } from '../../support/orders';

const ops = path.resolve(__dirname, '../../../bin/ops');
let stack: OrderStack;

beforeAll(async () => {
  // The chain roles run, so the order's stake is delegated and reconcile has a (pool, receiver) pair to read.
  stack = await startDeliveryStack('opsjson', 1);
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

async function runOps(args: string[]): Promise<{ code: number; result: any; stderr: any[] }> {
  const done = await promisify(execFile)(ops, args, { env: stack.world.env, encoding: 'utf8', timeout: 120_000 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  const stdout = done.stdout.trim().split('\n');
  // --json: stdout is exactly one JSON value; stderr only JSON objects.
  expect(stdout).toHaveLength(1);
  const stderr = done.stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { code: done.code, result: JSON.parse(stdout[0]), stderr };
}

test('adjust, rotate-encryption-key, replay and reconcile answer --json, with progress objects for the long ones', async () => {
  const customer = await fundedCustomer(stack, 50_000_000_000n);
  const placed = await postOrder(stack, customer, { resource: 'energy', amount: 65_000, tier: '1h', receiver: (await newWallet()).address });
  expect(placed.status).toBe(201);
  await orderUntil(stack, customer, placed.body.id, (o) => o.confirm_status === 'confirmed');

  const adjusted = await runOps(['adjust', '--account', customer.accountId, '--amount-sun', '1000000', '--memo', 'json test', '--json']);
  expect(adjusted).toMatchObject({ code: 0, result: { journal_id: expect.any(String) } });

  const rotated = await runOps(['rotate-encryption-key', '--json']);
  expect(rotated.code).toBe(0);
  expect(rotated.result.tables.find((t: any) => t.table === 'api_keys')).toMatchObject({ current: expect.any(Number), unreadable: [] });
  const keyRows = rotated.stderr.filter((l) => l.progress?.label === 'api_keys rows');
  expect(keyRows.at(-1).progress).toMatchObject({ done: keyRows.at(-1).progress.total, percent: 100, seconds_left: 0 });
  expect(keyRows.at(-1).progress.total).toBeGreaterThanOrEqual(1);

  const replayed = await runOps(['replay', '--verify', '--json']);
  expect([replayed.code, replayed.result.identical]).toEqual([0, true]);
  const labels = replayed.stderr.filter((l) => l.progress).map((l) => l.progress.label);
  expect(labels).toEqual(expect.arrayContaining(['replayed records', 'compared tables']));
  const compared = replayed.stderr.filter((l) => l.progress?.label === 'compared tables').at(-1).progress;
  expect([compared.done, compared.total]).toEqual([replayed.result.tables.length, replayed.result.tables.length]);
  expect(replayed.stderr.some((l) => typeof l.note === 'string' && l.note.includes('live snapshot taken'))).toBe(true);

  const reconciled = await runOps(['reconcile', '--json']);
  expect([reconciled.code, reconciled.result.findings]).toEqual([0, 0]);
  expect(reconciled.stderr.filter((l) => l.note?.startsWith('check ')).map((l) => l.note)).toEqual(['check 1/2: orders-stake', 'check 2/2: deposits']);
  const reads = reconciled.stderr.filter((l) => l.progress?.label === 'orders-stake chain reads (pool, receiver)').at(-1).progress;
  // The order's receiver at least, read once per (pool, receiver) pair.
  expect(reads.total).toBeGreaterThanOrEqual(1);
  expect(reads).toMatchObject({ done: reads.total, percent: 100 });
}, 240_000);

test('without --json the result is the plain text, and progress lines name done/total', async () => {
  const { stdout, stderr } = await promisify(execFile)(ops, ['rotate-encryption-key'], { env: stack.world.env, encoding: 'utf8' });
  expect(stdout).toMatch(/^api_keys\s+resealed \d+ {2}already current \d+ {2}unreadable 0$/m);
  expect(stderr).toMatch(/api_keys rows \d+\/\d+ \(100 %\)/);
}, 120_000);
