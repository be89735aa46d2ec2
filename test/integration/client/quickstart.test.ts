/**
 * The README's quick start (examples/quickstart.mjs) against a real stack: it signs a fresh wallet up,
 * funds it with the ops tool, places an order and prints what the next steps need. The printed API key
 * must work (a signed read of the printed order), the wallet key must be the wallet's, and the human form
 * prints the same things.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TronWeb } from 'tronweb';
import { createEnergyClient } from '../../../clients/typescript/src';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { startOrderStack, type OrderStack } from '../../support/orders';

const run = promisify(execFile);
const script = path.resolve(__dirname, '../../../examples/quickstart.mjs');
let stack: OrderStack;

beforeAll(async () => {
  stack = await startOrderStack('quickstart');
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const quickstart = (args: string[]) =>
  run(process.execPath, [script, ...args], { env: { ...stack.world.env, API_BASE: stack.base, TRON_FULL_HOST: stack.devnet.url }, encoding: 'utf8', timeout: 120_000 });

test('prints the wallet key, the API key and a placed order, and the printed key works', async () => {
  const { stdout } = await quickstart(['--json']);
  const out = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(out).toMatchObject({ account_id: expect.stringMatching(/^acc_/), api_key: { id: expect.stringMatching(/^key_/), secret: expect.any(String) }, order: { id: expect.stringMatching(/^ord_/) } });
  expect(TronWeb.address.fromPrivateKey(out.wallet.private_key)).toBe(out.wallet.address);
  const client = createEnergyClient({ baseUrl: stack.base, apiKey: out.api_key });
  const order = await client.api.GET('/v1/orders/{orderId}', { params: { path: { orderId: out.order.id } } });
  expect([order.response.status, order.data?.account_id, order.data?.receiver]).toEqual([200, out.account_id, out.order.receiver]);
  const balance = await client.api.GET('/v1/balance');
  expect(BigInt(balance.data!.balance_sun) + BigInt(balance.data!.reserved_sun!) > 0n).toBe(true);
}, 180_000);

test('the human form names each thing the next step needs', async () => {
  const { stdout } = await quickstart([]);
  for (const label of ['wallet ', 'wallet key ', 'API key id ', 'API key secret ', 'order ']) expect(stdout).toContain(label);
  expect(stdout).toMatch(/API key id\s+key_/);
  expect(stdout).toMatch(/order\s+ord_\S+ \w+: 65000 energy for 1h/);
}, 180_000);
