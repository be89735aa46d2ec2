/**
 * Every USDT branch (held below min and above max, then credited by support; no rate, then a DEX rate),
 * deposits to a retired address inside and after its window, chain reads failing for a while, and the
 * watcher SIGKILLed mid-scan and restarted: nothing lost, nothing credited twice.
 */
import { creditHeldDeposit } from '../../../services/ops/credit-held';
import { depositAddressAt } from '../../../services/chain/deposit-derivation';
import { nextDepositIndex } from '../../../services/api/stores/accounts';
import { derivedId } from '../../../services/domain/ids';
import { call, signIn, sessionHeaders } from '../../support/identity';
import {
  balanceOf, CONFIRMATIONS, creditedEvents, customerWithAddress, produceBlocks, sendTrx, sendUsdt, settled, startDepositStack,
  watcherPosition, type DepositStack,
} from '../../support/deposits';
import { startService } from '../../support/service-process';
import { eventually } from '../../support/world';
import { processorCaughtUp } from '../../support/processor-lag';

let stack: DepositStack;

beforeAll(async () => {
  stack = await startDepositStack('depbranches');
  await stack.devnet.post('/admin/faucet', { to: stack.devnet.accounts.customers[1].address, usdt: 5_000_000_000 });
  await produceBlocks(stack.devnet, 1);
  await stack.startWatcher();
});

afterAll(async () => {
  await stack?.stop();
});

async function depositRow(txid: string) {
  const { rows } = await stack.rt.pool.query('SELECT * FROM deposits WHERE txid = $1', [txid]);
  return rows[0];
}

async function confirm(): Promise<void> {
  const head = await produceBlocks(stack.devnet, CONFIRMATIONS + 1);
  await settled(stack, head);
}

describe('USDT deposits', () => {
  it('holds below min and above max without an event; the ledger shows them; support credits one', async () => {
    const customer = await customerWithAddress(stack);
    const small = await sendUsdt(stack.devnet, 1, customer.address, 1_000_000);
    const large = await sendUsdt(stack.devnet, 1, customer.address, 2_500_000_000);
    await confirm();
    await eventually(async () => (await depositRow(large))?.status === 'held_for_review', 20_000, 'held rows');
    expect((await depositRow(small)).status).toBe('held_below_min');
    expect((await balanceOf(stack, customer)).balance_sun).toBe(0);
    expect(await creditedEvents(stack, customer.accountId)).toHaveLength(0);

    const session = await signIn(stack.base, customer.wallet);
    const ledger = await call(stack.base, 'GET', '/v1/ledger', { headers: sessionHeaders(session) });
    expect(ledger.body.data.map((e: any) => e.deposit.status).sort()).toEqual(['held_below_min', 'held_for_review']);
    expect(ledger.body.data.every((e: any) => e.amount_sun === 0 && e.deposit.rate === null && e.kind === 'deposit')).toBe(true);
    expect(ledger.body.data.find((e: any) => e.deposit.status === 'held_for_review').deposit.usdt_amount).toBe('2500');

    const result = await creditHeldDeposit(stack.rt, stack.bus, (await depositRow(large)).deposit_id, 'reviewed');
    expect(result?.outcome).toBe('applied');
    // 2,500 USDT at 3.5 minus 5 bps.
    expect((await balanceOf(stack, customer)).balance_sun).toBe(8_745_625_000);
    const events = await eventually(async () => {
      const e = await creditedEvents(stack, customer.accountId);
      return e.length ? e : undefined;
    }, 20_000, 'event after support credit');
    expect(events[0].data).toMatchObject({ asset: 'USDT', usdt_amount: '2500', rate: '3498250', rate_source: 'fixed_env' });
    const again = await creditHeldDeposit(stack.rt, stack.bus, (await depositRow(large)).deposit_id, 'twice');
    expect(again?.status).toBe(200);
    expect((await balanceOf(stack, customer)).balance_sun).toBe(8_745_625_000);
  });

  it('waits without a rate (pending_rate on the ledger) and credits at the DEX rate once one returns', async () => {
    await stack.stopWatcher();
    // A pool address that is no contract: no rate.
    await stack.startWatcher({ USDT_RATE_SOURCE: 'dex_v3', DEX_POOL_ADDRESS: stack.devnet.accounts.customers[4].address });
    const customer = await customerWithAddress(stack);
    const txid = await sendUsdt(stack.devnet, 1, customer.address, 20_000_000);
    await confirm();
    await eventually(async () => (await depositRow(txid))?.status === 'pending_rate', 20_000, 'pending_rate');
    const session = await signIn(stack.base, customer.wallet);
    const ledger = await call(stack.base, 'GET', '/v1/ledger?kind=deposit', { headers: sessionHeaders(session) });
    expect(ledger.body.data).toEqual([expect.objectContaining({ amount_sun: 0, deposit: expect.objectContaining({ status: 'pending_rate', usdt_amount: '20' }) })]);

    await stack.stopWatcher();
    await stack.devnet.post('/admin/price', { trx_per_usdt: '4' });
    await produceBlocks(stack.devnet, 2);
    await stack.startWatcher({ USDT_RATE_SOURCE: 'dex_v3' });
    await eventually(async () => (await depositRow(txid))?.status === 'credited', 20_000, 'credited at the DEX rate');
    const row = await depositRow(txid);
    expect(row.rate_source).toMatch(/^dex_v3@\d+$/);
    // 4 TRX per USDT from slot0 (floored to SUN), minus 5 bps.
    expect(Number(row.rate)).toBeGreaterThanOrEqual(3_997_999);
    expect(Number(row.rate)).toBeLessThanOrEqual(3_998_000);
    expect((await balanceOf(stack, customer)).balance_sun).toBe(Number(row.amount_sun));
    await stack.stopWatcher();
    await stack.startWatcher();
  });
});

describe('retired deposit addresses', () => {
  it('credit inside their window and are held after it', async () => {
    const inside = await customerWithAddress(stack);
    const after = await customerWithAddress(stack);
    const rotate = async (accountId: string, issuedAt: number) => {
      const index = await nextDepositIndex(stack.rt.pool);
      const commandId = derivedId('command', 'test-rotate', accountId);
      await stack.bus.append([{
        type: 'deposit_address.assign', commandId, accountId, issuedAt, deadlineAt: null, replyTo: null,
        address: depositAddressAt(stack.rt.cfg.DEPOSIT_XPUB, index), derivationIndex: index, reason: 'rotate',
      }]);
      await eventually(async () => {
        const { rows } = await stack.rt.pool.query("SELECT outcome FROM command_results WHERE command_id = $1 AND outcome = 'applied'", [commandId]);
        return rows.length === 1;
      }, 20_000, 'rotation applied');
    };
    await rotate(inside.accountId, Date.now());
    // Rotated 31 days ago: its 30-day credit window is over.
    await rotate(after.accountId, Date.now() - 31 * 86_400_000);
    const inTx = await sendTrx(stack.devnet, 2, inside.address, 3_000_000);
    const outTx = await sendTrx(stack.devnet, 2, after.address, 4_000_000);
    await confirm();
    await eventually(async () => (await depositRow(outTx))?.status === 'held_retired_address', 20_000, 'held after window');
    expect((await depositRow(inTx)).status).toBe('credited');
    expect((await balanceOf(stack, inside)).balance_sun).toBe(3_000_000);
    expect((await balanceOf(stack, after)).balance_sun).toBe(0);
  });
});

describe('chain trouble', () => {
  it('reads failing for a while delay credits and lose none', async () => {
    const customer = await customerWithAddress(stack);
    const txid = await sendTrx(stack.devnet, 3, customer.address, 7_000_000);
    // 6 s of failing reads (2.5 s left too little on a loaded machine: producing the blocks and the pause below
    // could outlast the fault, and the check would then race a credit that is allowed).
    await stack.devnet.post('/admin/faults', { fail_reads_ms: 6_000 });
    await produceBlocks(stack.devnet, CONFIRMATIONS + 1);
    // Time for the watcher to try (and fail) while reads fail: nothing may be credited meanwhile.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await depositRow(txid)).toBeUndefined();
    await eventually(async () => (await depositRow(txid))?.status === 'credited', 30_000, 'credited after the fault');
    expect((await balanceOf(stack, customer)).balance_sun).toBe(7_000_000);
  });

  it('a watcher SIGKILLed mid-scan and restarted credits every deposit once', async () => {
    await stack.stopWatcher();
    const customer = await customerWithAddress(stack);
    const amounts = Array.from({ length: 12 }, (_, i) => 1_000_000 + i);
    for (const [i, sun] of amounts.entries()) {
      await sendTrx(stack.devnet, i % 2 === 0 ? 0 : 3, customer.address, sun);
      if (i % 3 === 2) await produceBlocks(stack.devnet, 1);
    }
    await produceBlocks(stack.devnet, CONFIRMATIONS + 1);
    // A child watcher SIGKILLs itself right after appending a range's commands, before storing its position.
    const first = startService(stack.world, 'deposit-watcher', { CHAOS_CRASH_POINTS: 'deposit-watcher.after-append:1' });
    await new Promise<void>((resolve) => first.child.once('exit', () => resolve()));
    expect(first.child.signalCode).toBe('SIGKILL');
    const second = startService(stack.world, 'deposit-watcher');
    await second.ready;
    const total = amounts.reduce((a, b) => a + b, 0);
    await eventually(async () => (await balanceOf(stack, customer)).balance_sun === total, 30_000, 'all credited');
    await second.kill('SIGTERM');
    // From zero again, in-process: still once each.
    await stack.rt.pool.query('DELETE FROM deposit_watcher_position');
    await stack.startWatcher();
    const head = await produceBlocks(stack.devnet, 1);
    await eventually(async () => (await watcherPosition(stack.rt)) >= head - CONFIRMATIONS + 1, 30_000, 're-scan');
    await processorCaughtUp(stack.rt);
    expect((await balanceOf(stack, customer)).balance_sun).toBe(total);
    expect(await creditedEvents(stack, customer.accountId)).toHaveLength(amounts.length);
  });
});
