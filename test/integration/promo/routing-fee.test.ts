/**
 * The dev code's routing-fee cap end to end (issue 17, docs/routing-fee.md), on a devnet of its own: a
 * drop holder claims its code (201), claims again (200, the same code); an account enters it; an order
 * routed to the provider is quoted, reserved and charged on delivery at the code's 3 % instead of the
 * network's 10 %; a pool-filled order pays no routing fee; once duration_days have passed on the injected
 * clock the provider-routed order pays the normal fee again. Journals balance; the log replays to the same tables.
 */
import { promoSet } from '../../../services/ops/promo';
import { replayAndVerify } from '../../../services/ops/replay';
import { call, sign, newWallet, signUp, type Customer, type Wallet } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { orderCall, orderUntil } from '../../support/orders';
import { dropToken, energyLimit, startPromoStack, type PromoStack } from '../../support/promo';
import type { IdentityStack } from '../../support/identity';
import { templateReplay } from '../../support/world';

jest.setTimeout(240_000);

let stack: PromoStack;
let holder: Wallet;
let customer: Customer;
const DAY = 86_400_000;
const AMOUNT = 65_000;
/** The 1h energy row of the nile defaults: 60 SUN per unit. */
const BASE_PAY = 60n * BigInt(AMOUNT);

beforeAll(async () => {
  stack = await startPromoStack('promofee', ['broadcaster', 'confirmer']);
  holder = await newWallet();
  const { token_id } = await dropToken(stack, [holder]);
  const set = await promoSet(stack.rt, stack.bus, { 'token-id': token_id, 'grant-energy': '40000', 'grant-seconds': '600' });
  expect(set.outcome).toBe('applied');
  customer = await signUp(stack.base);
  const funded = await stack.bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 1_000_000_000n, memo: 'test funding' });
  expect(funded.outcome).toBe('applied');
});

afterAll(async () => {
  if (stack) {
    await assertLedgerInvariants(stack.rt.pool);
    // The log rebuilds the same orders, codes and journals: the fee was decided once, carried in the command.
    const report = await replayAndVerify(stack.rt, templateReplay);
    expect(report.tables.filter((t) => t.differences.length > 0)).toEqual([]);
  }
  await stack?.stop();
});

/** Signed with the stack's injected clock, so requests stay valid after it jumps. */
const api = (method: string, path: string, body?: unknown) => orderCall(stack as unknown as IdentityStack, customer, method, path, body);
const balance = async () => (await api('GET', '/v1/balance')).body;
const chargeJournal = async (orderId: string) =>
  (await stack.rt.pool.query(
    `SELECT l.ledger_account, l.amount::text AS amount FROM journal_lines l JOIN journals j ON j.id = l.journal_id
     WHERE j.order_id = $1 AND j.kind = 'order_charge' ORDER BY l.amount`,
    [orderId],
  )).rows;

async function devClaim(w: Wallet) {
  const c = await call(stack.base, 'POST', '/v1/promo/dev/challenge', { body: { address: w.address } });
  expect(c.status).toBe(201);
  return call(stack.base, 'POST', '/v1/promo/dev/claim', { body: { address: w.address, nonce: c.body.nonce, signature: sign(c.body.message, w) } });
}

/** Places a 1h energy order to `receiver` and waits until it is delivered (reservation settled). */
async function deliveredOrder(receiver: string) {
  const created = await api('POST', '/v1/orders', { resource: 'energy', amount: AMOUNT, tier: '1h', receiver });
  expect(created.status).toBe(201);
  const done = await orderUntil(stack as unknown as IdentityStack, customer, created.body.id, (o) => o.status === 'active' && o.confirm_status === 'confirmed', 90_000);
  expect(await energyLimit(stack, receiver)).toBeGreaterThanOrEqual(AMOUNT);
  return { created: created.body, done };
}

test('a sign-in challenge claims no dev code (1010), nothing issued', async () => {
  const signIn = await call(stack.base, 'POST', '/v1/accounts/challenge', { body: { address: holder.address, purpose: 'login' } });
  const claim = await call(stack.base, 'POST', '/v1/promo/dev/claim', { body: { address: holder.address, nonce: signIn.body.nonce, signature: sign(signIn.body.message, holder) } });
  expect([claim.status, claim.body.error?.code]).toEqual([401, 1010]);
  expect((await stack.rt.pool.query('SELECT count(*)::int AS n FROM promo_dev_codes')).rows[0].n).toBe(0);
});

test('dev code: claim, claim again, enter it; a provider-routed order pays the capped fee; after duration_days the normal fee', async () => {
  const issued = await devClaim(holder);
  expect(issued.status).toBe(201);
  expect(issued.body).toMatchObject({ fee_pct: 3, duration_days: 30, used: false });
  const again = await devClaim(holder);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(issued.body);

  // A dev-code challenge opens no session and redeems no promo: the purpose is checked (1010).
  const c = await call(stack.base, 'POST', '/v1/promo/dev/challenge', { body: { address: holder.address } });
  const proof = { address: holder.address, nonce: c.body.nonce, signature: sign(c.body.message, holder) };
  const session = await call(stack.base, 'POST', '/v1/session', { body: proof });
  expect([session.status, session.body.error?.code]).toEqual([401, 1010]);

  // Before the code: the provider-routed quote carries the network's 10 %.
  stack.rt.cfg.ORDER_SUPPLIER = 'provider';
  const receiver = stack.devnet.accounts.customers[1].address;
  const plain = await api('POST', '/v1/quotes', { resource: 'energy', amount: AMOUNT, tier: '1h', receiver });
  expect(plain.status).toBe(201);
  expect(BigInt(plain.body.pay_amount_sun)).toBe(BASE_PAY + BASE_PAY / 10n);

  const entered = await api('POST', '/v1/account/promo', { code: issued.body.code });
  expect(entered.status).toBe(200);
  expect(entered.body).toMatchObject({ code: issued.body.code, used: true, account_id: customer.accountId });
  const capped = BASE_PAY + (BASE_PAY * 3n) / 100n;

  const quoted = await api('POST', '/v1/quotes', { resource: 'energy', amount: AMOUNT, tier: '1h', receiver });
  expect(BigInt(quoted.body.pay_amount_sun)).toBe(capped);
  expect(BigInt(quoted.body.price_sun_per_unit)).toBe(60n);

  // Charged: reserved at the capped total, then the order_charge journal moves exactly that.
  const before = await balance();
  const first = await deliveredOrder(receiver);
  expect(BigInt(first.created.pay_amount_sun)).toBe(capped);
  expect(BigInt(first.done.total_amount_sun)).toBe(capped);
  expect(first.done.refunded_amount_sun).toBe(0);
  // The fills explain the charge: the price per unit in the market class includes the fee (60 SUN + 3 %).
  expect(first.done.fills).toEqual([{ class: 'market', amount: AMOUNT, price_sun: 61.8 }]);
  const after = await balance();
  expect(BigInt(after.balance_sun)).toBe(BigInt(before.balance_sun) - capped);
  // Double-entry: the fee is revenue of its own account.
  expect(await chargeJournal(first.created.id)).toEqual([
    { ledger_account: `customer:${customer.accountId}:trx`, amount: String(-capped) },
    { ledger_account: 'system:routing_fees', amount: String(capped - BASE_PAY) },
    { ledger_account: 'system:order_revenue', amount: String(BASE_PAY) },
  ]);

  // The pool's own stake carries no routing fee.
  stack.rt.cfg.ORDER_SUPPLIER = 'pool';
  const pooled = await api('POST', '/v1/quotes', { resource: 'energy', amount: AMOUNT, tier: '1h', receiver });
  expect(BigInt(pooled.body.pay_amount_sun)).toBe(BASE_PAY);
  stack.rt.cfg.ORDER_SUPPLIER = 'provider';

  // Still capped one second before duration_days run out...
  const enteredAt = Date.parse(entered.body.entered_at);
  stack.setOffset(enteredAt + 30 * DAY - 1_000 - Date.now());
  expect(BigInt((await api('POST', '/v1/quotes', { resource: 'energy', amount: AMOUNT, tier: '1h', receiver })).body.pay_amount_sun)).toBe(capped);

  // ...and the normal fee once they have (injected clock), charged on delivery.
  stack.setOffset(enteredAt + 30 * DAY + 1_000 - Date.now());
  const normal = BASE_PAY + BASE_PAY / 10n;
  const beforeLater = await balance();
  const later = await deliveredOrder(stack.devnet.accounts.customers[2].address);
  expect(BigInt(later.done.total_amount_sun)).toBe(normal);
  expect(BigInt((await balance()).balance_sun)).toBe(BigInt(beforeLater.balance_sun) - normal);
  expect(await chargeJournal(later.created.id)).toEqual([
    { ledger_account: `customer:${customer.accountId}:trx`, amount: String(-normal) },
    { ledger_account: 'system:routing_fees', amount: String(normal - BASE_PAY) },
    { ledger_account: 'system:order_revenue', amount: String(BASE_PAY) },
  ]);
});
