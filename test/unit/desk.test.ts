/** The transfer desk, pure (contract.md section 12): terms, sizing, refusals, the payment and return handlers, the wire shape. */
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';
import { decideDeskPayment, deskAccountId, deskTerms, energyFor, refundOf, type DeskPayment } from '../../services/domain/desk/rules';
import { netFor, ledgerAccounts, type Journal } from '../../services/domain/ledger';
import type { Order } from '../../services/domain/orders/rules';
import type { Account } from '../../services/domain/account';
import type { StateView } from '../../services/domain/outcome';
import { priceTable } from '../../services/domain/pricing';
import { commandFromWire, commandToWire } from '../../services/platform/wire/commands';
import { devDefaults, deskTermsOf, parseConfig } from '../../services/platform/config';
import { deskSigner } from '../../services/chain/desk-key';
import { memoReceiver } from '../../services/desk/payments';
import { freshKeys } from './support/keys';
import { startDeskReturner } from '../../services/desk/returner';

const ctx = { network: 'nile' as const, brand: 'energy' };
const desk = deskAccountId('nile', 'energy');
const terms = deskTerms(priceTable('nile'), { tier: '1h', markupSun: 10n, minSun: 1_000_000n, maxSun: 500_000_000n });
const SENDER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';

function world() {
  const accounts = new Map<string, Account>();
  const orders = new Map<string, Order>();
  const payments = new Map<string, DeskPayment>();
  const journals: Journal[] = [];
  const view: StateView = {
    account: (id) => accounts.get(id),
    orders: { byId: (id) => orders.get(id), byClientId: () => undefined, byQuote: () => undefined, idempotency: () => undefined },
    desk: { payment: (id) => payments.get(id) },
  };
  let n = 0;
  const run = (body: Record<string, unknown>) => {
    const command = { commandId: `cmd_${++n}`, accountId: desk, issuedAt: 1_000_000 + n, deadlineAt: null, replyTo: null, ...body } as Command;
    const outcome = applyCommand(view, command as never, ctx);
    if (outcome.kind === 'applied') {
      for (const a of outcome.effects.accounts) accounts.set(a.id, a);
      for (const o of outcome.effects.orders ?? []) orders.set(o.id, o);
      for (const p of outcome.effects.deskPayments ?? []) payments.set(p.paymentId, p);
      journals.push(...outcome.effects.journals);
    }
    return outcome;
  };
  return { accounts, orders, payments, journals, run };
}

const payment = (txid: string, amount: bigint, extra: Record<string, unknown> = {}) => ({
  type: 'desk.payment', paymentId: txid, txid, logIndex: -1, asset: 'TRX', kind: 'transfer', sender: SENDER, amount, memo: null, receiver: SENDER,
  receiverActive: true, blockNumber: 10, blockTimestamp: 30_000, confirmationsRequired: 19, terms, returnFeeSun: 280_000n, supplier: 'pool', ...extra,
});

test('terms: the tier row plus the markup; bounds that cannot buy the row min or max refuse to start', () => {
  expect(terms).toMatchObject({ tier: '1h', durationSeconds: 3600, priceSunPerUnit: 70n, minAmount: 10_000, maxAmount: 10_000_000 });
  expect(() => deskTerms(priceTable('nile'), { tier: '1h', markupSun: 10n, minSun: 100_000n, maxSun: 500_000_000n })).toThrow(/DESK_MIN_SUN/);
  expect(() => deskTerms(priceTable('nile'), { tier: '1h', markupSun: 0n, minSun: 1_000_000n, maxSun: 700_000_000n })).toThrow(/DESK_MAX_SUN/);
  expect(() => deskTerms(priceTable('nile'), { tier: '1d', markupSun: 0n, minSun: 1_000_000n, maxSun: 2_000_000n })).toThrow(/not sold/);
  const env = { ...freshKeys(), STACK_PROFILE: 'test' };
  expect(() => parseConfig({ ...env, DESK_MIN_SUN: '1000' })).toThrow(/DESK_MIN_SUN/);
  expect(deskTermsOf(parseConfig(env)).priceSunPerUnit).toBe(70n);
  expect(parseConfig(env).DESK_ADDRESS).toBe(devDefaults.DESK_ADDRESS);
  expect(parseConfig({ ...env, NETWORK: 'mainnet', SERVICE_DOMAIN: 'x.example', DEPOSIT_XPUB: devDefaults.DEPOSIT_XPUB }).DESK_ADDRESS).toBeUndefined();
});

test('sizing: floor(V / price) in thousands; an inactive receiver is activated out of the payment, or it is returned', () => {
  expect(energyFor(3_020_000n, 50n)).toBe(60_000);
  expect(energyFor(69_999n, 70n)).toBe(0);
  expect(decideDeskPayment({ amountSun: 999_999n, receiver: SENDER, receiverActive: true, terms })).toMatchObject({ kind: 'return', reason: 'below_min' });
  expect(decideDeskPayment({ amountSun: 500_000_001n, receiver: SENDER, receiverActive: true, terms })).toMatchObject({ kind: 'return', reason: 'above_max' });
  expect(decideDeskPayment({ amountSun: 1_000_000n, receiver: SENDER, receiverActive: true, terms })).toEqual({ kind: 'order', amount: 14_000, activateSun: 0n, paySun: 1_000_000n });
  expect(decideDeskPayment({ amountSun: 500_000_000n, receiver: SENDER, receiverActive: true, terms })).toMatchObject({ kind: 'order', amount: 7_142_000 });
  expect(decideDeskPayment({ amountSun: 2_000_000n, receiver: SENDER, receiverActive: false, terms })).toMatchObject({ kind: 'return', reason: 'receiver_inactive' });
  expect(decideDeskPayment({ amountSun: 2_200_000n, receiver: SENDER, receiverActive: false, terms })).toEqual({ kind: 'order', amount: 10_000, activateSun: 1_500_000n, paySun: 700_000n });
  expect(refundOf(500_000n, 280_000n)).toBe(220_000n);
  expect(refundOf(100n, 280_000n)).toBe(0n);
});

test('an accepted payment: credited to the desk and one order of total V, reserved; seen again, nothing', () => {
  const w = world();
  const first = w.run(payment('aa'.repeat(32), 3_000_000n));
  expect(first.kind).toBe('applied');
  const order = [...w.orders.values()][0];
  expect(order).toMatchObject({ accountId: desk, source: 'transfer', resource: 'energy', amount: 42_000, tier: '1h', receiver: SENDER, totalSun: 3_000_000n, status: 'allocating' });
  const account = w.accounts.get(desk)!;
  expect(account).toMatchObject({ ownerAddress: null, balanceSun: 3_000_000n, reservedSun: 3_000_000n });
  expect(netFor(w.journals[0], ledgerAccounts.customerTrx(desk), 'TRX')).toBe(3_000_000n);
  const again = w.run(payment('aa'.repeat(32), 3_000_000n));
  expect(again).toMatchObject({ kind: 'applied', status: 200 });
  expect(again.kind === 'applied' && again.effects.orders).toBeUndefined();
  expect(w.orders.size).toBe(1);
});

test('a refused payment: order failed 3048 with V less the return fee refunded, the desk keeps nothing; the return signed once, landed once', () => {
  const w = world();
  const txid = 'bb'.repeat(32);
  const out = w.run(payment(txid, 500_000n));
  expect(out.kind === 'applied' && out.effects.orderEvents?.map((e) => e.type)).toEqual(['order.created', 'order.failed']);
  const order = [...w.orders.values()][0];
  expect(order).toMatchObject({ status: 'failed', refundedSun: 220_000n, totalSun: 500_000n, failure: { code: 3048, slug: 'transfer_not_accepted' } });
  expect(w.accounts.get(desk)).toMatchObject({ balanceSun: 0n, reservedSun: 0n });
  expect(w.payments.get(txid)).toMatchObject({ status: 'returning', refusal: 'below_min', refundSun: 220_000n, returnTxId: null });
  expect(w.journals.map((j) => netFor(j, ledgerAccounts.networkFees, 'TRX'))).toEqual([0n, 280_000n]);

  const signed = (txId: string, replaces: string | null) => ({ type: 'desk.return', paymentId: txid, step: 'signed', txId, signedTx: `{"${txId}":1}`, replaces, at: 5, amountSun: 0n });
  w.run(signed('t1', null));
  w.run(signed('t2', null));
  expect(w.payments.get(txid)!.returnTxId).toBe('t1');
  w.run(signed('t3', 'tX'));
  expect(w.payments.get(txid)!.returnTxId).toBe('t1');
  w.run(signed('t4', 't1'));
  expect(w.payments.get(txid)!.returnTxId).toBe('t4');
  w.run({ type: 'desk.return', paymentId: txid, step: 'landed', txId: 't1', signedTx: null, replaces: null, at: 6, amountSun: 0n });
  expect(w.payments.get(txid)!.status).toBe('returning');
  w.run({ type: 'desk.return', paymentId: txid, step: 'landed', txId: 't4', signedTx: null, replaces: null, at: 7, amountSun: 0n });
  expect(w.payments.get(txid)).toMatchObject({ status: 'returned', returnedAt: 7 });
  w.run(signed('t5', 't4'));
  expect(w.payments.get(txid)!.returnTxId).toBe('t4');
});

test('an accepted payment whose order fails to deliver is owed back, once; a 3048 order owes nothing more', () => {
  const w = world();
  const txid = 'ff'.repeat(32);
  w.run(payment(txid, 3_000_000n));
  const order = [...w.orders.values()][0];
  const settle = w.run({ type: 'order.settle', orderId: order.id, landedTxIds: [], deliveredAt: 5 });
  expect(settle.kind === 'applied' && settle.effects.followUps.map((f) => [f.type, (f as any).step, (f as any).paymentId])).toEqual([['desk.return', 'owed', txid]]);
  const owed = settle.kind === 'applied' ? settle.effects.followUps[0] : null;
  w.run(owed as never);
  expect(w.payments.get(txid)).toMatchObject({ status: 'returning', refusal: 'undelivered', refundSun: 2_720_000n });
  expect(w.accounts.get(desk)).toMatchObject({ balanceSun: 0n, reservedSun: 0n });
  const again = w.run(owed as never);
  expect(again.kind === 'applied' && again.effects.journals).toEqual([]);
  expect(w.accounts.get(desk)!.balanceSun).toBe(0n);

  // A partial delivery: the pro-rata refund the settlement gives the desk goes back to the sender.
  const p = world();
  const ptx = 'fe'.repeat(32);
  p.run(payment(ptx, 3_000_000n));
  const porder = [...p.orders.values()][0];
  const tx = (id: string) => ({ kind: 'delegate', from: 'TPool', amount: 21_000, sun: 1n, txId: id, signedTx: '{}' });
  p.run({ type: 'order.allocate', orderId: porder.id, txs: [tx('d1'), tx('d2')], ratioLimit: 1n, ratioWeight: 1n });
  const psettle = p.run({ type: 'order.settle', orderId: porder.id, landedTxIds: ['d1'], deliveredAt: 5 });
  const powed = psettle.kind === 'applied' ? psettle.effects.followUps.find((f) => f.type === 'desk.return') : undefined;
  expect(powed).toMatchObject({ step: 'owed', amountSun: 1_500_000n });
  p.run(powed as never);
  expect(p.payments.get(ptx)).toMatchObject({ status: 'returning', refusal: 'undelivered', refundSun: 1_220_000n });
  expect(p.accounts.get(desk)).toMatchObject({ balanceSun: 0n, reservedSun: 0n });

  const refused = world();
  const out = refused.run(payment('ab'.repeat(32), 10n));
  expect(out.kind === 'applied' && out.effects.followUps).toEqual([]);
  expect(refused.payments.get('ab'.repeat(32))).toMatchObject({ status: 'returned', refundSun: 0n });
});

test('TRC-20 to the desk is recorded, never credited; a desk command for another account is refused', () => {
  const w = world();
  w.run(payment('cc'.repeat(32), 7_000_000n, { asset: 'USDT', kind: 'log', logIndex: 0, paymentId: `${'cc'.repeat(32)}:0` }));
  expect(w.payments.get(`${'cc'.repeat(32)}:0`)).toMatchObject({ status: 'recorded', orderId: null });
  expect(w.orders.size).toBe(0);
  expect(w.journals).toEqual([]);
  const other = applyCommand({ account: () => undefined }, { ...payment('dd'.repeat(32), 3_000_000n), commandId: 'c', accountId: 'acc_x', issuedAt: 1, deadlineAt: null, replyTo: null } as never, ctx);
  expect(other).toMatchObject({ kind: 'rejected', error: { slug: 'invalid_request' } });
});

test('desk commands survive the wire exactly (int64 terms included)', () => {
  const command = { commandId: 'cmd_1', accountId: desk, issuedAt: 5, deadlineAt: null, replyTo: null, ...payment('ee'.repeat(32), 9_007_199_254_740_993n) } as Command;
  expect(commandFromWire(commandToWire(command))).toEqual(command);
  const ret = { commandId: 'cmd_2', accountId: desk, issuedAt: 5, deadlineAt: null, replyTo: null, type: 'desk.return', paymentId: 'p', step: 'owed', txId: '', signedTx: null, replaces: null, at: 9, amountSun: 9_007_199_254_740_993n } as Command;
  expect(commandFromWire(commandToWire(ret))).toEqual(ret);
});

test('the memo names a receiver only when it is an address; the devnet desk key signs for the default desk address', () => {
  expect(memoReceiver(` ${SENDER}\n`)).toBe(SENDER);
  expect(memoReceiver('for energy')).toBeNull();
  expect(memoReceiver(null)).toBeNull();
  expect(deskSigner({ NETWORK: 'nile', DEVNET_SEED: 'devnet', DESK_ADDRESS: undefined, DESK_PRIVATE_KEY: undefined }).address).toBe(devDefaults.DESK_ADDRESS);
  expect(() => deskSigner({ NETWORK: 'mainnet', DEVNET_SEED: 'devnet', DESK_ADDRESS: 'TX', DESK_PRIVATE_KEY: undefined })).toThrow(/DESK_PRIVATE_KEY/);
});

test('the desk returner: idle without a desk (no key needed), refuses to start with a desk and no key on mainnet', async () => {
  const cfg = parseConfig({ ...freshKeys(), STACK_PROFILE: 'test' });
  const deps = { pool: {} as never, bus: { append: async () => undefined }, clock: {} as never, writer: {} as never, reader: {} as never };
  const idle = await startDeskReturner({ ...deps, cfg: { ...cfg, NETWORK: 'mainnet', DESK_ADDRESS: undefined, DESK_PRIVATE_KEY: undefined } });
  await idle.stop();
  await expect(startDeskReturner({ ...deps, cfg: { ...cfg, NETWORK: 'mainnet', DESK_ADDRESS: devDefaults.DESK_ADDRESS, DESK_PRIVATE_KEY: undefined } })).rejects.toThrow(/DESK_PRIVATE_KEY/);
});

test('bounds not configured follow the price row: a narrower energy row still sells, and its terms buy exactly its range', () => {
  const table = priceTable('nile');
  const narrow = { ...table, rows: table.rows.map((r) => (r.resource === 'energy' && r.tier === '1h' ? { ...r, max_amount: 100_000 } : r)) };
  const t = deskTerms(narrow, { tier: '1h', markupSun: 10n });
  expect(t.maxSun).toBe(100_000n * t.priceSunPerUnit);
  expect(energyFor(t.maxSun, t.priceSunPerUnit)).toBe(100_000);
  expect(deskTerms(table, { tier: '1h', markupSun: 10n })).toMatchObject({ minSun: 1_000_000n, maxSun: 500_000_000n });
  expect(() => deskTerms(narrow, { tier: '1h', markupSun: 10n, maxSun: 500_000_000n })).toThrow(/DESK_MAX_SUN/);
});
