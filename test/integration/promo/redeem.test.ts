/**
 * Promo redeemed by signature on a devnet of its own (TRC-10 drop by POST /admin/promo-token): every
 * promo state, 3038 / 3039 / 3040, 20 concurrent claims against a cap of 5 (exactly 5), the cap's reset
 * at UTC midnight on an injected clock, and the grant read from the chain: delegated, then returned.
 */
import { promoOff, promoSet } from '../../../services/ops/promo';
import { call, newWallet, sign, type Wallet } from '../../support/identity';
import { dropToken, energyLimit as limitOf, signedPromoClaim, startPromoStack, type PromoStack } from '../../support/promo';
import { eventually } from '../../support/world';

jest.setTimeout(240_000);

let stack: PromoStack;
let base: string;
let tokenId: string;
let holders: Wallet[];

beforeAll(async () => {
  stack = await startPromoStack('promoredeem', ['promo-granter']);
  base = stack.base;
  holders = await Promise.all(Array.from({ length: 22 }, () => newWallet()));
  tokenId = (await dropToken(stack, holders)).token_id;
});

afterAll(async () => {
  await stack?.stop();
});

const promo = async () => (await call(base, 'GET', '/v1/promo')).body;
const setPromo = async (options: Record<string, string>) => {
  const result = await promoSet(stack.rt, stack.bus, { 'token-id': tokenId, 'grant-energy': '50000', 'grant-seconds': '6', ...options });
  expect(result.outcome).toBe('applied');
};
const challenge = (w: Wallet) => call(base, 'POST', '/v1/promo/redeem/challenge', { body: { address: w.address } });
async function signedClaim(w: Wallet) {
  const { purpose, ...claim } = await signedPromoClaim(stack, w);
  expect(purpose).toBe('promo_redeem');
  return claim;
}
const redeem = (body: unknown) => call(base, 'POST', '/v1/promo/redeem', { body });
const rowCount = async () => (await stack.rt.pool.query('SELECT count(*)::int AS n FROM promo_redemptions')).rows[0].n as number;
const energyLimit = (address: string) => limitOf(stack, address);
const nextMidnight = (ms: number) => (Math.floor(ms / 86_400_000) + 1) * 86_400_000;

test('off: every field after state is null, and nothing can be claimed', async () => {
  expect(await promo()).toEqual({
    network: 'nile', state: 'off', starts_at: null, ends_at: null, cap_per_day: null, left_today: null, resets_at: null, grant: null, token: null, forward_address: null,
  });
  const refused = await challenge(holders[0]);
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe(3040);
});

test('not_started and ended follow --starts and --ends', async () => {
  const now = Date.now();
  await setPromo({ starts: new Date(now + 3_600_000).toISOString() });
  expect(await promo()).toMatchObject({ state: 'not_started', starts_at: new Date(now + 3_600_000).toISOString(), token: { id: tokenId, name: 'PROMO' } });
  expect((await challenge(holders[0])).body.error.code).toBe(3040);
  await setPromo({ starts: new Date(now - 7_200_000).toISOString(), ends: new Date(now - 3_600_000).toISOString() });
  expect((await promo()).state).toBe('ended');
  expect((await challenge(holders[0])).body.error.code).toBe(3040);
});

test('20 concurrent claims against a cap of 5: exactly 5 accepted; cap_reached_today until the next UTC midnight', async () => {
  await setPromo({ 'cap-per-day': '5' });
  expect(await promo()).toMatchObject({ state: 'active', cap_per_day: 5, left_today: 5, grant: { resource: 'energy', amount: 50_000, duration_seconds: 6 } });
  const claimants = holders.slice(0, 20);
  const bodies = await Promise.all(claimants.map(signedClaim));
  const answers = await Promise.all(bodies.map(redeem));
  const accepted = answers.filter((a) => a.status === 201);
  expect(accepted).toHaveLength(5);
  for (const refused of answers.filter((a) => a.status !== 201)) {
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe(3040);
  }
  for (const a of accepted) {
    expect(a.body).toMatchObject({ method: 'signature', status: 'granting', energy: 50_000, expires_at: null, has_account: false });
    expect(a.body.wallet_ticket.token).toMatch(/^wtk_/);
  }
  expect(await rowCount()).toBe(5);

  const now = Date.now() + stack.offset();
  const capped = await promo();
  expect(capped).toMatchObject({ state: 'cap_reached_today', left_today: 0, resets_at: new Date(nextMidnight(now)).toISOString() });
  expect((await challenge(holders[20])).body.error.code).toBe(3040);

  // Every accepted claim is delegated on chain.
  for (const a of accepted) {
    await eventually(async () => (await call(base, 'GET', `/v1/promo/redemptions/${a.body.address}`)).body.status === 'delegated', 60_000, 'delegated');
    expect(await energyLimit(a.body.address)).toBeGreaterThanOrEqual(50_000);
  }

  // The injected clock passes the next UTC midnight: a new day, a new cap.
  stack.setOffset(nextMidnight(now) + 1_000 - Date.now());
  expect(await promo()).toMatchObject({ state: 'active', left_today: 5 });
  // A claim of the new day is accepted and counts against it.
  const nextDay = await redeem(await signedClaim(holders[20]));
  expect(nextDay.status).toBe(201);
  expect(await promo()).toMatchObject({ state: 'active', left_today: 4 });
});

test('an eligible wallet redeems once: delegated on chain, returned at the end; 3039 after, 3038 for a wallet outside the drop', async () => {
  const wallet = holders[21];
  const before = await energyLimit(wallet.address);
  expect(before).toBe(0);
  // Two promo challenges while still eligible: the second is spent after the first claim is accepted.
  const [first, spare] = [await signedClaim(wallet), await signedClaim(wallet)];
  // A sign-in challenge cannot redeem the promo (1010), and nothing is recorded.
  const signIn = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: wallet.address, purpose: 'login' } });
  const wrongPurpose = await redeem({ address: wallet.address, nonce: signIn.body.nonce, signature: sign(signIn.body.message, wallet) });
  expect(wrongPurpose.status).toBe(401);
  expect(wrongPurpose.body.error.code).toBe(1010);
  expect(await call(base, 'GET', `/v1/promo/redemptions/${wallet.address}`)).toMatchObject({ status: 404 });
  const claimed = await redeem(first);
  expect(claimed.status).toBe(201);
  expect(claimed.body).toMatchObject({ address: wallet.address, method: 'signature', status: 'granting', energy: 50_000, has_account: false });

  // The wallet ticket opens a dashboard session of the wallet's account, once (two exchanges at once: one wins).
  const ticket = claimed.body.wallet_ticket.token;
  const exchanges = await Promise.all([0, 1].map(() => call(base, 'POST', '/v1/session/wallet-ticket', { body: { token: ticket } })));
  const opened = exchanges.find((e) => e.status === 201);
  expect(exchanges.map((e) => e.status).sort()).toEqual([201, 401]);
  expect(opened?.body).toMatchObject({ address: wallet.address, owner_address: wallet.address, role: 'owner' });
  expect(opened?.headers.get('set-cookie')).toMatch(/^session=/);
  expect(exchanges.find((e) => e.status === 401)?.body.error.code).toBe(1010);

  const delegated = await eventually(async () => {
    const r = await call(base, 'GET', `/v1/promo/redemptions/${wallet.address}`);
    return r.body.status === 'delegated' ? r.body : undefined;
  }, 60_000, 'delegated');
  expect(Object.keys(delegated).sort()).toEqual(['address', 'energy', 'expires_at', 'method', 'redeemed_at', 'status']);
  expect(await energyLimit(wallet.address)).toBeGreaterThanOrEqual(50_000);

  // Claimed already: refused before signing, and a claim that gets through the challenge records nothing.
  const again = await challenge(wallet);
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe(3039);
  const rows = await rowCount();
  const second = await redeem(spare);
  expect(second.status).toBe(409);
  expect(second.body.error.code).toBe(3039);
  expect(await rowCount()).toBe(rows);

  const outsider = await newWallet();
  const notEligible = await challenge(outsider);
  expect(notEligible.status).toBe(409);
  expect(notEligible.body.error.code).toBe(3038);

  // The grant lasts 6 s: then the stake goes back to the pool.
  await eventually(async () => (await energyLimit(wallet.address)) === 0, 60_000, 'undelegated');
  const stored = await eventually(async () => {
    const { rows } = await stack.rt.pool.query('SELECT returned_at, undelegate_tx_id FROM promo_redemptions WHERE address = $1', [wallet.address]);
    return rows[0].returned_at !== null ? rows[0] : undefined;
  }, 30_000, 'returned');
  expect(stored.undelegate_tx_id).toMatch(/^[0-9a-f]{64}$/);
  expect(await call(base, 'GET', `/v1/promo/redemptions/${outsider.address}`)).toMatchObject({ status: 404 });
});

test('ops promo off: state off, challenges refused', async () => {
  expect((await promoOff(stack.rt, stack.bus)).outcome).toBe('applied');
  expect((await promo()).state).toBe('off');
  expect((await challenge(holders[20])).body.error.code).toBe(3040);
});
