/**
 * A customer funds its account from a devnet wallet with TronWeb: TRX and USDT appear on the balance and
 * the ledger only after the confirmations, once each; the account turns active; balance.credited once per
 * deposit. The watcher then re-scans from block zero and credits nothing twice.
 */
import { signIn, sessionHeaders, call } from '../../support/identity';
import {
  balanceOf, CONFIRMATIONS, creditedEvents, customerWithAddress, produceBlocks, sendTrx, sendUsdt, settled, signedGet, startDepositStack,
  watcherPosition, type DepositStack,
} from '../../support/deposits';
import { eventually } from '../../support/world';
import { processorCaughtUp } from '../../support/processor-lag';

let stack: DepositStack;

beforeAll(async () => {
  stack = await startDepositStack('deptrxusdt');
  await stack.startWatcher();
});

afterAll(async () => {
  await stack?.stop();
});

describe('funding an account with TRX and USDT', () => {
  it('credits after the confirmations, once each, and the account turns active', async () => {
    const customer = await customerWithAddress(stack);
    const before = await signedGet(stack, customer, '/v1/account');
    expect(before.body.status).toBe('unfunded');

    await stack.devnet.post('/admin/faucet', { to: stack.devnet.accounts.customers[0].address, usdt: 100_000_000 });
    await produceBlocks(stack.devnet, 1);
    const trxTxid = await sendTrx(stack.devnet, 0, customer.address, 25_000_000);
    const usdtTxid = await sendUsdt(stack.devnet, 0, customer.address, 10_000_000);
    let head = await produceBlocks(stack.devnet, CONFIRMATIONS - 1);

    // Not yet confirmed: nothing on the balance or the ledger.
    await settled(stack, head);
    expect((await balanceOf(stack, customer)).balance_sun).toBe(0);

    head = await produceBlocks(stack.devnet, 1);
    // 10 USDT at 3.5 TRX minus 5 bps: 3,498,250 SUN per USDT.
    const expected = 25_000_000 + 34_982_500;
    await eventually(async () => (await balanceOf(stack, customer)).balance_sun === expected, 30_000, 'both deposits credited');
    const balance = await balanceOf(stack, customer);
    expect(balance).toMatchObject({ balance_sun: expected, reserved_sun: 0, available_sun: expected });

    const account = await signedGet(stack, customer, '/v1/account');
    expect(account.body.status).toBe('active');
    expect(account.body.totals.deposited_sun).toBe(expected);

    const session = await signIn(stack.base, customer.wallet);
    const ledger = await call(stack.base, 'GET', '/v1/ledger?kind=deposit', { headers: sessionHeaders(session) });
    expect(ledger.status).toBe(200);
    expect(ledger.body.data).toHaveLength(2);
    const usdtEntry = ledger.body.data.find((e: any) => e.deposit.asset === 'USDT');
    const trxEntry = ledger.body.data.find((e: any) => e.deposit.asset === 'TRX');
    const [newest, older] = ledger.body.data;
    expect(trxEntry).toMatchObject({
      kind: 'deposit', amount_sun: 25_000_000, amount_usdt: 0, order_id: null,
      deposit: {
        txid: trxTxid, sender: stack.devnet.accounts.customers[0].address, status: 'credited', confirmations_required: CONFIRMATIONS,
        asset: 'TRX', usdt_amount: null, rate: null, rate_source: null, spread_bps: null,
      },
    });
    expect(trxEntry.id).toMatch(/^jrn_/);
    expect(trxEntry.deposit.block_number).toEqual(expect.any(Number));
    expect(usdtEntry.deposit).toMatchObject({
      txid: usdtTxid, status: 'credited', asset: 'USDT', usdt_amount: '10', rate: '3498250', rate_source: 'fixed_env', spread_bps: 5,
    });
    // Cursor paging, newest first: one entry per page, stable.
    const first = await call(stack.base, 'GET', '/v1/ledger?limit=1', { headers: sessionHeaders(session) });
    expect(first.body.data.map((e: any) => e.id)).toEqual([newest.id]);
    const second = await call(stack.base, 'GET', `/v1/ledger?limit=1&cursor=${first.body.next_cursor}`, { headers: sessionHeaders(session) });
    expect(second.body.data.map((e: any) => e.id)).toEqual([older.id]);
    expect(second.body.next_cursor).toBeNull();
    const badCursor = await call(stack.base, 'GET', '/v1/ledger?cursor=nonsense', { headers: sessionHeaders(session) });
    expect(badCursor.status).toBe(400);

    // rate_now on the deposit-address read: the fixed rate before the spread, and the bounds.
    const rows = await signedGet(stack, customer, '/v1/deposit-addresses');
    expect(rows.body.data.find((r: any) => r.currency === 'USDT')).toMatchObject({
      contract: stack.devnet.accounts.usdt_contract, spread_bps: 5, min: '5', max: '2000', confirmations_required: CONFIRMATIONS,
      rate_now: { trx_per_usdt: '3.5', source: 'fixed_env', at: expect.any(String) },
    });

    // An API key opens no ledger.
    const byKey = await signedGet(stack, customer, '/v1/ledger');
    expect(byKey.status).toBe(403);

    const events = await eventually(async () => {
      const e = await creditedEvents(stack, customer.accountId);
      return e.length >= 2 ? e : undefined;
    }, 30_000, 'balance.credited events');
    expect(events).toHaveLength(2);
    const usdtEvent = events.find((e) => e.data.asset === 'USDT');
    expect(usdtEvent.data).toMatchObject({
      reason: 'deposit', currency: 'USDT', amount_sun: 34_982_500n, tx_hash: usdtTxid, confirmations: null, balance_sun: null,
      usdt_amount: '10', rate: '3498250', rate_source: 'fixed_env', spread_bps: 5, txid: usdtTxid,
    });
    const trxEvent = events.find((e) => e.data.asset === 'TRX');
    expect(trxEvent.data).toMatchObject({ reason: 'deposit', amount_sun: 25_000_000n, usdt_amount: null, rate: null, rate_source: null, spread_bps: null });

    // Re-scan from block zero: the same commands again, nothing credited twice.
    await stack.stopWatcher();
    await stack.rt.pool.query('DELETE FROM deposit_watcher_position');
    await stack.startWatcher();
    head = await produceBlocks(stack.devnet, 1);
    await eventually(async () => (await watcherPosition(stack.rt)) >= head - CONFIRMATIONS + 1, 30_000, 're-scan done');
    await processorCaughtUp(stack.rt);
    expect((await balanceOf(stack, customer)).balance_sun).toBe(expected);
    expect(await creditedEvents(stack, customer.accountId)).toHaveLength(2);
  });
});
