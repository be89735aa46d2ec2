/**
 * Redeem by forwarding: a holder sends the promo token to forward_address with an unmodified TronWeb
 * (sendToken); the forward watcher turns it into one claim, delegated on chain. Forwarding again does
 * nothing; the watcher (a child process) SIGKILLed and restarted, its position lost so it re-reads the same
 * blocks: still once.
 */
import { TronWeb } from 'tronweb';
import { promoOff, promoSet } from '../../../services/ops/promo';
import { call, newWallet, sign, signedCall, signUp, type Wallet } from '../../support/identity';
import { dropToken, energyLimit, redemptionOf, startPromoStack, type PromoStack } from '../../support/promo';
import { startService, type ServiceProcess } from '../../support/service-process';
import { processorCaughtUp } from '../../support/processor-lag';
import { eventually } from '../../support/world';

jest.setTimeout(240_000);

let stack: PromoStack;
let tokenId: string;
let holder: Wallet;
let outsider: Wallet;
let forwardAddress: string;
let watcher: ServiceProcess;

/** The forward watcher as production runs it: its own process, so the test can SIGKILL it. */
async function startWatcher(): Promise<ServiceProcess> {
  const child = startService(stack.world, 'promo-forward-watcher');
  await child.ready;
  return child;
}

beforeAll(async () => {
  stack = await startPromoStack('promoforward', ['promo-granter']);
  holder = await newWallet();
  tokenId = (await dropToken(stack, [holder], 3)).token_id;
  // TRX for bandwidth once the day's 600 free bytes are used (three transfers).
  await stack.devnet.post('/admin/faucet', { to: holder.address, trx_sun: 5_000_000 });
  forwardAddress = stack.devnet.accounts.customers[4].address;
  // A wallet that got the token from the holder, not from the drop: not eligible.
  outsider = await newWallet();
  await stack.devnet.post('/admin/faucet', { to: outsider.address, trx_sun: 5_000_000 });
  await send(holder, outsider.address, 1);
  const result = await promoSet(stack.rt, stack.bus, { 'token-id': tokenId, 'grant-energy': '40000', 'grant-seconds': '600', 'forward-address': forwardAddress });
  expect(result.outcome).toBe('applied');
  watcher = await startWatcher();
});

afterAll(async () => {
  await watcher?.kill('SIGKILL');
  await stack?.stop();
});

async function send(from: Wallet, to: string, amount: number): Promise<string> {
  const tronWeb = new TronWeb({ fullHost: stack.devnet.url, privateKey: from.privateKey });
  const sent: any = await tronWeb.trx.sendToken(to, amount, tokenId);
  if (sent.result !== true) throw new Error(`sendToken refused: ${JSON.stringify(sent)}`);
  return sent.txid ?? sent.transaction?.txID;
}

const rows = async () => (await stack.rt.pool.query("SELECT address, method FROM promo_redemptions ORDER BY address")).rows;
const forwardResults = async () =>
  (await stack.rt.pool.query("SELECT outcome, count(*)::int AS n FROM command_results WHERE command_type = 'promo.redeem' GROUP BY outcome ORDER BY outcome")).rows;

test('GET /v1/promo shows the forward address', async () => {
  const promo = await fetch(`${stack.base}/v1/promo`).then((r) => r.json());
  expect(promo).toMatchObject({ state: 'active', forward_address: forwardAddress, token: { id: tokenId } });
});

test('forwarding the token redeems once, delegated on chain; forwarding again does nothing; a restart re-reads and still once', async () => {
  await send(holder, forwardAddress, 1);
  const delegated = await eventually(async () => {
    const r = await redemptionOf(stack, holder.address);
    return r.status === 'delegated' ? r : undefined;
  }, 60_000, 'forward claim delegated');
  expect(delegated).toMatchObject({ address: holder.address, method: 'forward', energy: 40_000 });
  expect(await energyLimit(stack, holder.address)).toBeGreaterThanOrEqual(40_000);

  // The outsider forwards too: it never received the token from the drop, so nothing is claimed.
  await send(outsider, forwardAddress, 1);
  // The holder forwards again: refused by the processor (3039), nothing recorded.
  await send(holder, forwardAddress, 1);
  await eventually(async () => (await forwardResults()).some((r) => r.outcome === 'rejected'), 30_000, 'second forward seen');
  expect(await rows()).toEqual([{ address: holder.address, method: 'forward' }]);

  // SIGKILLed and restarted with its position lost: every block is read again, the same commands appended.
  // Both forwards are in solidified blocks by now (the watcher saw them): the restarted watcher has re-read them
  // once its position is past this solid head, and what it appended is applied once the processor's lag is zero
  // (not a 2 s pause, which on a loaded machine could end before the re-read).
  const solid: any = await (await fetch(`${stack.devnet.url}/walletsolidity/getnowblock`)).json();
  const solidHead = Number(solid.block_header.raw_data.number);
  await watcher.kill('SIGKILL');
  await stack.rt.pool.query("DELETE FROM deposit_watcher_position WHERE watcher = 'promo-forward'");
  watcher = await startWatcher();
  const position = async () => Number((await stack.rt.pool.query("SELECT next_block FROM deposit_watcher_position WHERE watcher = 'promo-forward'")).rows[0]?.next_block ?? 0);
  await eventually(async () => (await position()) > solidHead, 60_000, 're-read past the forwards');
  await processorCaughtUp(stack.rt);
  expect(await rows()).toEqual([{ address: holder.address, method: 'forward' }]);
  expect(await forwardResults()).toEqual([{ outcome: 'applied', n: 1 }, { outcome: 'rejected', n: 1 }]);
  expect(await energyLimit(stack, holder.address)).toBeGreaterThanOrEqual(40_000);
  expect(await energyLimit(stack, holder.address)).toBeLessThan(80_000);
});

test('dev codes: 201 issued, 200 the same code later; 3038 outside the drop; 5003 when the drop log cannot be read; 3040 when off', async () => {
  const signedDev = async (w: Wallet) => {
    const c = await call(stack.base, 'POST', '/v1/promo/dev/challenge', { body: { address: w.address } });
    expect(c.status).toBe(201);
    expect(c.body.purpose).toBe('promo_dev_code');
    return { address: w.address, nonce: c.body.nonce, signature: sign(c.body.message, w) };
  };
  const devClaim = async (w: Wallet) => call(stack.base, 'POST', '/v1/promo/dev/claim', { body: await signedDev(w) });
  // Two claims of one wallet at once: one issues the code, the other answers it with 200.
  const bodies = await Promise.all([signedDev(holder), signedDev(holder)]);
  const both = await Promise.all(bodies.map((body) => call(stack.base, 'POST', '/v1/promo/dev/claim', { body })));
  expect(both.map((b) => b.status).sort()).toEqual([200, 201]);
  expect(both[0].body).toEqual(both[1].body);
  const first = both.find((b) => b.status === 201)!;
  expect(first.body).toMatchObject({ fee_pct: 3, duration_days: 30, used: false });
  expect(first.body.code).toMatch(/^DEV-[0-9A-F]{12}$/);
  const activateBy = Date.parse(first.body.activate_by) - Date.now();
  expect(activateBy).toBeGreaterThan(29 * 86_400_000);
  expect(activateBy).toBeLessThanOrEqual(30 * 86_400_000);
  const again = await devClaim(holder);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(first.body);

  // Entering the code: single use (two accounts at once: one wins), 404 for an unknown code, a reader key 403.
  const [a, b] = await Promise.all([signUp(stack.base), signUp(stack.base)]);
  const entries = await Promise.all([a, b].map((c) => signedCall(stack.base, c.key, 'POST', '/v1/account/promo', { code: first.body.code })));
  expect(entries.map((e) => e.status).sort()).toEqual([200, 409]);
  const entered = entries.find((e) => e.status === 200)!;
  expect(entered.body).toMatchObject({ code: first.body.code, used: true, fee_pct: 3, duration_days: 30 });
  expect(Date.parse(entered.body.active_until) - Date.parse(entered.body.entered_at)).toBe(30 * 86_400_000);
  expect([a.accountId, b.accountId]).toContain(entered.body.account_id);
  expect(entries.find((e) => e.status === 409)!.body.error.code).toBe(3039);
  expect((await signedCall(stack.base, a.key, 'POST', '/v1/account/promo', { code: 'DEV-000000000000' })).status).toBe(404);
  const reader = await signUp(stack.base, ['orders.read']);
  expect((await signedCall(stack.base, reader.key, 'POST', '/v1/account/promo', { code: first.body.code })).status).toBe(403);
  expect((await devClaim(holder)).body).toMatchObject({ code: first.body.code, used: true });

  const notInDrop = await call(stack.base, 'POST', '/v1/promo/dev/challenge', { body: { address: outsider.address } });
  expect(notInDrop.status).toBe(409);
  expect(notInDrop.body.error.code).toBe(3038);

  await stack.devnet.post('/admin/faults', { fail_reads_ms: 5_000 });
  const unreadable = await call(stack.base, 'POST', '/v1/promo/dev/challenge', { body: { address: (await newWallet()).address } });
  await stack.devnet.post('/admin/faults', { clear: true });
  expect(unreadable.status).toBe(503);
  expect(unreadable.body.error.code).toBe(5003);

  await promoOff(stack.rt, stack.bus);
  const off = await call(stack.base, 'POST', '/v1/promo/dev/challenge', { body: { address: holder.address } });
  expect(off.status).toBe(409);
  expect(off.body.error.code).toBe(3040);
});
