/**
 * The end-to-end restore of issue 15, on the real stack: accounts with API keys, a webhook endpoint,
 * members, address-book entries, an order and an on-chain deposit; the database is dropped; `ops restore`
 * rebuilds a new one from the topics alone; the service started there (its own process, dispatcher
 * included) answers as before: old keys sign, members sign in with their roles, balances and ledgers
 * are identical, webhooks deliver and verify with the old secret (the last window again, same event ids:
 * none lost), and `replay --verify` finds the restored database equal to its log.
 */
import { createServer, type AddressInfo } from 'node:net';
import { DepositWatcher } from '../../../services/deposits/watcher';
import { startDispatcher } from '../../../services/dispatcher/dispatcher';
import { parseConfig } from '../../../services/platform/config';
import { dropDatabase } from '../../../services/platform/db/databases';
import { createRuntime, type Runtime } from '../../../services/runtime';
import { replayedTables, notReplayedTables } from '../../../services/ops/replayed-tables';
import { webhookSecretBox } from '../../../services/webhooks/secrets';
import { verifySignature } from '../../../services/webhooks/signing';
import { startDevnet, type Devnet } from '../../devnet/start-devnet';
import { customerWithAddress, produceBlocks, sendTrx, settled, CONFIRMATIONS, type DepositStack } from '../../support/deposits';
import { startReceiver, testCa, type ReceivedRequest, type Receiver } from '../../support/https-receiver';
import {
  call, newWallet, OPEN_BUDGETS, sessionHeaders, signedCall, signIn, signUp, startApiStack, type ApiStack, type Session, type Wallet,
} from '../../support/identity';
import { runOps } from '../../support/ops-process';
import { postOrder } from '../../support/orders';
import { startService, type ServiceProcess } from '../../support/service-process';
import { dropWorld, eventually, type World } from '../../support/world';
import { unpublishedCount } from '../../../services/relay/relay';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...OPEN_BUDGETS };
let devnet: Devnet;
let api: ApiStack;
let watcher: DepositWatcher | undefined;
let receiver: Receiver;
let dispatcher: { stop(): Promise<void> } | undefined;
let service: ServiceProcess | undefined;
let restored: { world: World; rt: Runtime } | undefined;
let liveDropped = false;
/** The deposit kit's view of this test's pieces (devnet, runtime, API). */
const stack = () => ({ devnet, world: api.world, rt: api.rt, bus: api.bus, base: api.base, stop: async () => undefined }) as unknown as DepositStack;

beforeAll(async () => {
  devnet = await startDevnet({ DEVNET_BLOCK_MS: '3600000' });
  api = await startApiStack('restoreall', {
    TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.accounts.usdt_contract, DEX_POOL_ADDRESS: devnet.accounts.dex_pool,
    DEPOSIT_CONFIRMATIONS: String(CONFIRMATIONS), DEPOSIT_POLL_MS: '100', USDT_RATE_SOURCE: 'fixed_env', USDT_FIXED_RATE: '3.5', ...ENV,
  });
  watcher = new DepositWatcher({ cfg: api.rt.cfg, pool: api.rt.pool, bus: api.bus, clock: api.rt.clock });
  watcher.start();
  receiver = await startReceiver();
  dispatcher = await startDispatcher({
    log: api.rt.log, codec: api.rt.codec, pool: api.rt.pool, clock: api.rt.clock, secrets: webhookSecretBox(api.rt.cfg),
    allowPrivate: true, concurrency: 4, userAgent: 'energy-webhook/1', ca: testCa().ca,
  });
});

/** Stops everything that runs on the live database (watcher, dispatcher, API, processor, relay, bus). */
async function stopLive(): Promise<void> {
  await watcher?.stop();
  watcher = undefined;
  await dispatcher?.stop();
  dispatcher = undefined;
  await api.stopServing();
  await api.bus.stop();
}

afterAll(async () => {
  await service?.kill();
  await receiver?.close();
  if (!liveDropped) {
    // The test failed before the loss: the live world is checked against its log and dropped as usual.
    await stopLive();
    await dropWorld(api.world, api.rt).finally(() => api.rt.close());
  } else if (restored) {
    // The live database is gone (the test dropped it): the restored one goes, with the topics.
    await restored.rt.log.deleteTopics(Object.values(restored.rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
    await restored.rt.close();
    await dropDatabase(restored.world.cfg.DATABASE_URL);
  }
  await devnet?.stop();
});

const ownerCall = (base: string, s: Session, method: string, path: string, body?: unknown) => call(base, method, path, { body, headers: sessionHeaders(s) });
const signedBy = (secret: string, r: ReceivedRequest) =>
  verifySignature(secret, { timestamp: r.headers['x-api-timestamp'], signature: r.headers['x-api-sign'] }, r.raw, Math.floor(Date.now() / 1000));

/** An answer without the instants that say when it was answered (`as_of`, the rate's `at`). */
const withoutClock = <T>(body: T): T =>
  JSON.parse(JSON.stringify(body, (key, value) => (key === 'as_of' ? undefined : key === 'rate_now' ? { ...value, at: undefined } : value)));

/** Everything a customer sees, read through the API: compared before the loss and after the restore. */
async function customerView(base: string, key: { id: string; secret: string }, owner: Session) {
  const read = async (path: string) => {
    const r = await signedCall(base, key, 'GET', path);
    expect([path, r.status]).toEqual([path, 200]);
    return withoutClock(r.body);
  };
  const session = async (path: string) => {
    const r = await ownerCall(base, owner, 'GET', path);
    expect([path, r.status]).toEqual([path, 200]);
    return withoutClock(r.body);
  };
  return {
    account: await read('/v1/account'),
    balance: await read('/v1/balance'),
    orders: await read('/v1/orders'),
    // Delivery bookkeeping (last_delivery_*) is the dispatcher's, off the log: compared without it.
    webhooks: (await read('/v1/webhooks')).data.map(({ last_delivery_at: _at, last_delivery_status: _status, ...e }: Record<string, unknown>) => e),
    ledger: await session('/v1/ledger'),
    members: await session('/v1/account/members'),
    addresses: await session('/v1/account/addresses'),
  };
}

test('drop the database, restore it from the topics, and the service answers as before', async () => {
  const base = api.base;
  const a = await customerWithAddress(stack());
  const b = await signUp(base);
  const owner = await signIn(base, a.wallet, a.accountId);

  // Webhook endpoint of a (secret given once), members and address book through the owner's session.
  const hook = await signedCall(base, a.key, 'POST', '/v1/webhooks', { url: receiver.url });
  expect(hook.status).toBe(201);
  const [viewer, editor, leaver]: Wallet[] = await Promise.all([newWallet(), newWallet(), newWallet()]);
  for (const [wallet, role] of [[viewer, 'viewer'], [editor, 'viewer'], [leaver, 'editor']] as const) {
    expect((await ownerCall(base, owner, 'POST', '/v1/account/members', { address: wallet.address, role })).status).toBe(201);
  }
  expect((await ownerCall(base, owner, 'POST', '/v1/account/members', { address: editor.address, role: 'editor' })).body.role).toBe('editor');
  expect((await ownerCall(base, owner, 'DELETE', `/v1/account/members/${leaver.address}`)).status).toBe(204);
  const book = [await newWallet(), await newWallet(), await newWallet()];
  const saved = [];
  for (const [i, w] of book.entries()) saved.push(await ownerCall(base, owner, 'POST', '/v1/account/addresses', { label: `receiver ${i}`, address: w.address }));
  expect(saved.map((s) => s.status)).toEqual([201, 201, 201]);
  expect((await ownerCall(base, owner, 'POST', '/v1/account/addresses', { label: 'renamed', address: book[0].address })).status).toBe(200);
  expect((await ownerCall(base, owner, 'DELETE', `/v1/account/addresses/${saved[1].body.id}`)).status).toBe(204);
  // The editor saves an entry in its own session (read-your-write: the entry is listed in the answer's wake).
  const editorSession = await signIn(base, editor, a.accountId);
  const byEditor = await ownerCall(base, editorSession, 'POST', '/v1/account/addresses', { label: 'from the editor', address: (await newWallet()).address });
  expect(byEditor.status).toBe(201);
  expect((await ownerCall(base, editorSession, 'GET', '/v1/account/addresses')).body.data.map((e: { id: string }) => e.id)).toContain(byEditor.body.id);

  // Money: an on-chain TRX deposit to a's address (balance.credited webhook), a support credit to b, an order by a.
  await sendTrx(devnet, 0, a.address, 30_000_000);
  await settled(stack(), await produceBlocks(devnet, CONFIRMATIONS + 1));
  expect((await api.bus.submit({ type: 'balance.adjust', accountId: b.accountId, amountSun: 9_000_000n, memo: 'credit' })).outcome).toBe('applied');
  const order = await postOrder(stack(), a, { resource: 'energy', amount: 65_000, tier: '5m', receiver: book[2].address });
  expect(order.status).toBe(201);
  const delivered = await eventually(async () => receiver.requests.length >= 1 && receiver.requests, 30_000, 'the deposit webhook');
  expect(delivered.every((r) => signedBy(hook.body.secret, r))).toBe(true);
  await eventually(async () => (await unpublishedCount(api.rt.pool)) === 0, 30_000, 'relay');
  const before = { a: await customerView(base, a.key, owner), b: withoutClock((await signedCall(base, b.key, 'GET', '/v1/balance')).body) };
  expect(before.a.account.balance_sun).toBe(30_000_000);
  expect(before.a.members.data.map((m: { role: string }) => m.role)).toEqual(['owner', 'viewer', 'editor']);
  expect(before.a.addresses.data).toHaveLength(3);
  const deliveredBefore = new Set(receiver.requests.map((r) => r.headers['x-event-id']));

  // Every table of the database is either rebuilt from the log or listed as off it on purpose.
  const { rows: tables } = await api.rt.pool.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
  const listed = new Set([...replayedTables.map((t) => t.table), ...notReplayedTables]);
  expect(tables.map((t) => t.tablename).filter((t) => !listed.has(t))).toEqual([]);

  // The loss: everything live stops and the database is dropped. Only the topics remain.
  await stopLive();
  await api.rt.close();
  const live = api.world.cfg.DATABASE_URL;
  const restoredName = `${new URL(live).pathname.slice(1)}_r`;
  liveDropped = true;
  await dropDatabase(live);

  const run = await runOps(api.world, ['restore', '--into', restoredName]);
  expect([run.code, run.stderr.slice(-2000)]).toEqual([0, expect.any(String)]);
  const restoredUrl = /^DATABASE_URL=(.+)$/m.exec(run.stdout)![1];
  expect(run.stdout).toMatch(/account_members\s+2 rows/);
  expect(run.stdout).toMatch(/address_book\s+3 rows/);
  expect(run.stdout).toMatch(/webhook_endpoints\s+1 rows/);
  const world: World = { ...api.world, env: { ...api.world.env, DATABASE_URL: restoredUrl }, cfg: parseConfig({ ...api.world.env, DATABASE_URL: restoredUrl }) };
  restored = { world, rt: await createRuntime(world.cfg) };

  const seenBefore = receiver.requests.length;
  const port = await freePort();
  service = startService(world, 'api,processor,relay,dispatcher', { API_PORT: String(port), NODE_EXTRA_CA_CERTS: testCa().caPath, ...ENV });
  await service.ready;
  const after = `http://127.0.0.1:${port}`;

  // Old keys sign; members sign in with their roles; a viewer may read but not write.
  const ownerAgain = await signIn(after, a.wallet, a.accountId);
  const view = { a: await customerView(after, a.key, ownerAgain), b: withoutClock((await signedCall(after, b.key, 'GET', '/v1/balance')).body) };
  expect(view).toEqual(before);
  const viewerSession = await signIn(after, viewer, a.accountId);
  expect(viewerSession.body.role).toBe('viewer');
  expect((await ownerCall(after, viewerSession, 'GET', '/v1/account/addresses')).status).toBe(200);
  expect((await ownerCall(after, viewerSession, 'POST', '/v1/account/addresses', { label: 'no', address: book[1].address })).status).toBe(403);
  const editorAgain = await signIn(after, editor, a.accountId);
  expect(editorAgain.body.role).toBe('editor');
  expect((await ownerCall(after, editorAgain, 'POST', '/v1/account/addresses', { label: 'again', address: book[1].address })).status).toBe(201);
  await expect(signIn(after, leaver, a.accountId)).rejects.toThrow(/session: 4\d\d/);

  // Webhooks: the events of the last window come again with the same ids (receivers dedupe on them), a
  // new event is delivered once, and every request verifies with the secret given before the loss.
  const adjust = await runOps(world, ['adjust', '--account', a.accountId, '--amount-sun', '1000', '--memo', 'after restore']);
  expect(adjust.code).toBe(0);
  const afterRestore = await eventually(async () => {
    const fresh = receiver.requests.slice(seenBefore);
    const ids = new Set(fresh.map((r) => r.headers['x-event-id']));
    return [...deliveredBefore].every((id) => ids.has(id)) && ids.size > deliveredBefore.size && fresh;
  }, 60_000, 'redelivery and the new event');
  expect(afterRestore.every((r) => signedBy(hook.body.secret, r))).toBe(true);

  // The restored database equals a replay of its log (money, orders, keys, endpoints, members, address book).
  const verify = await runOps(world, ['replay', '--verify']);
  expect([verify.code, verify.stdout.slice(-3000)]).toEqual([0, expect.any(String)]);
});
