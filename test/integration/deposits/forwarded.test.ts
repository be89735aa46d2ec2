/**
 * USDT and TRX reaching deposit addresses through a forwarding contract (a batch payout): the chain's own
 * transaction info is the truth; each USDT Transfer log and each TRX internal transfer to a deposit address is
 * credited once, by two watchers scanning at the same time and again after a re-scan from zero. The deposits
 * reconcile check is clean when everything is credited, and names the receipts (direct, internal TRX, USDT log)
 * made before the watcher's start block, which were never credited, and a deposit row no receipt backs.
 */
import { TronWeb } from 'tronweb';
import { DepositWatcher } from '../../../services/deposits/watcher';
import { depositsReconcileCheck, reconcileDeposits } from '../../../services/deposits/reconcile';
import { call, sessionHeaders, signIn } from '../../support/identity';
import {
  balanceOf, CONFIRMATIONS, creditedEvents, customerWithAddress, produceBlocks, sendTrx, settled, startDepositStack, walletOf, watcherPosition,
  type DepositStack,
} from '../../support/deposits';
import { eventually } from '../../support/world';

jest.setTimeout(180_000);

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const MULTI_SEND = 'multiSend(address,address[],uint256[],uint256[])';
/** 3.5 TRX per USDT minus 5 bps, in SUN per USDT (the stack's fixed rate). */
const CREDITED_RATE = 3_498_250n;

let stack: DepositStack;
let second: DepositWatcher | undefined;

beforeAll(async () => {
  stack = await startDepositStack('depfwd');
});

afterAll(async () => {
  await second?.stop();
  await stack?.stop();
});

/** The customer wallet `from` pays out through the forwarding contract with TronWeb's triggerSmartContract. */
async function multiSend(from: number, recipients: string[], usdt: bigint[], trx: bigint[]): Promise<string> {
  const wallet = walletOf(stack.devnet, from);
  const callValue = Number(trx.reduce((a, b) => a + b, 0n));
  const built = await wallet.transactionBuilder.triggerSmartContract(
    stack.devnet.accounts.forwarder_contract, MULTI_SEND, { feeLimit: 300_000_000, callValue },
    [
      { type: 'address', value: stack.devnet.accounts.usdt_contract },
      { type: 'address[]', value: recipients },
      { type: 'uint256[]', value: usdt.map(String) },
      { type: 'uint256[]', value: trx.map(String) },
    ],
    stack.devnet.accounts.customers[from].address,
  );
  const sent = await wallet.trx.sendRawTransaction(await wallet.trx.sign(built.transaction));
  if (!sent.result) throw new Error(`multiSend refused: ${JSON.stringify(sent)}`);
  return built.transaction.txID;
}

interface ChainReceipt { depositId: string; asset: 'TRX' | 'USDT'; address: string; amount: bigint }

/** What the chain says the transaction paid to `addresses`, read from its solidified transaction info. */
async function receiptsOnChain(txid: string, addresses: string[]): Promise<ChainReceipt[]> {
  const res = await fetch(`${stack.devnet.url}/walletsolidity/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txid }) });
  const info: any = await res.json();
  expect(info.receipt.result).toBe('SUCCESS');
  const usdtHex = TronWeb.address.toHex(stack.devnet.accounts.usdt_contract).slice(2).toLowerCase();
  const out: ChainReceipt[] = [];
  (info.internal_transactions ?? []).forEach((it: any, i: number) => {
    const to = TronWeb.address.fromHex(it.transferTo_address);
    const value = BigInt(it.callValueInfo?.[0]?.callValue ?? 0);
    if (!it.rejected && value > 0n && addresses.includes(to)) out.push({ depositId: `${txid}:internal:${i}`, asset: 'TRX', address: to, amount: value });
  });
  (info.log ?? []).forEach((log: any, i: number) => {
    const to = TronWeb.address.fromHex('41' + log.topics[2].slice(-40));
    if (log.address === usdtHex && log.topics[0] === TRANSFER_TOPIC && addresses.includes(to)) {
      out.push({ depositId: `${txid}:${i}`, asset: 'USDT', address: to, amount: BigInt('0x' + log.data) });
    }
  });
  return out;
}

const credit = (r: ChainReceipt) => (r.asset === 'TRX' ? r.amount : (r.amount * CREDITED_RATE) / 1_000_000n);

async function depositRows(txid: string): Promise<any[]> {
  const { rows } = await stack.rt.pool.query('SELECT deposit_id, asset, address, amount, status, amount_sun FROM deposits WHERE txid = $1 ORDER BY deposit_id', [txid]);
  return rows;
}

describe('deposits through a forwarding contract', () => {
  it('credits each USDT Transfer log and each TRX internal transfer once, as the chain reports them; reconcile is clean', async () => {
    const a = await customerWithAddress(stack);
    const b = await customerWithAddress(stack);
    const forwarder = stack.devnet.accounts.forwarder_contract;
    await stack.devnet.post('/admin/faucet', { to: forwarder, usdt: 100_000_000 });
    await produceBlocks(stack.devnet, 1);

    // Two watchers at once over the same database: the same commands twice, applied once.
    await stack.startWatcher();
    second = new DepositWatcher({ cfg: { ...stack.rt.cfg, ...stack.world.cfg }, pool: stack.rt.pool, bus: stack.bus, clock: stack.rt.clock });
    second.start();

    // a: 10 USDT, b: 2 TRX, a again: 6 USDT and 3 TRX; the same address twice in one transaction.
    const txid = await multiSend(1, [a.address, b.address, a.address], [10_000_000n, 0n, 6_000_000n], [0n, 2_000_000n, 3_000_000n]);
    const head = await produceBlocks(stack.devnet, CONFIRMATIONS);
    await settled(stack, head);

    const truth = await receiptsOnChain(txid, [a.address, b.address]);
    expect(truth.map((r) => [r.asset, r.address, r.amount])).toEqual([
      ['TRX', b.address, 2_000_000n], ['TRX', a.address, 3_000_000n], ['USDT', a.address, 10_000_000n], ['USDT', a.address, 6_000_000n],
    ]);
    const rows = await eventually(async () => {
      const r = await depositRows(txid);
      return r.length === truth.length ? r : undefined;
    }, 30_000, 'four deposits recorded');
    expect(rows.map((r) => [r.deposit_id, r.asset, r.address, BigInt(r.amount), r.status, BigInt(r.amount_sun)]).sort()).toEqual(
      truth.map((r) => [r.depositId, r.asset, r.address, r.amount, 'credited', credit(r)]).sort(),
    );

    const expectedA = truth.filter((r) => r.address === a.address).reduce((s, r) => s + credit(r), 0n);
    expect((await balanceOf(stack, a)).balance_sun).toBe(Number(expectedA));
    expect((await balanceOf(stack, b)).balance_sun).toBe(2_000_000);
    expect(await creditedEvents(stack, a.accountId)).toHaveLength(3);
    expect(await creditedEvents(stack, b.accountId)).toHaveLength(1);

    // The ledger shows each as a deposit of this transaction, the sender being the forwarding contract.
    const session = await signIn(stack.base, a.wallet);
    const ledger = await call(stack.base, 'GET', '/v1/ledger?kind=deposit', { headers: sessionHeaders(session) });
    expect(ledger.status).toBe(200);
    expect(ledger.body.data).toHaveLength(3);
    for (const entry of ledger.body.data) expect(entry.deposit).toMatchObject({ txid, sender: forwarder, status: 'credited' });
    expect(ledger.body.data.map((e: any) => e.deposit.asset).sort()).toEqual(['TRX', 'USDT', 'USDT']);

    // Re-scan from block zero with both watchers: nothing credited twice.
    await second.stop();
    await stack.stopWatcher();
    await stack.rt.pool.query('DELETE FROM deposit_watcher_position');
    await stack.startWatcher();
    const again = await produceBlocks(stack.devnet, 1);
    await eventually(async () => (await watcherPosition(stack.rt)) >= again - CONFIRMATIONS + 1, 30_000, 're-scan done');
    await settled(stack, again);
    expect((await balanceOf(stack, a)).balance_sun).toBe(Number(expectedA));
    expect(await creditedEvents(stack, a.accountId)).toHaveLength(3);
    expect(await depositRows(txid)).toHaveLength(4);

    // Every receipt of every deposit address is credited or held: reconcile reports nothing.
    const clean = await reconcileDeposits({ cfg: stack.world.cfg, pool: stack.rt.pool }, { fromBlock: 1 });
    expect(clean.receipts).toBeGreaterThanOrEqual(4);
    expect(clean.toBlock).toBe((await watcherPosition(stack.rt)) - 1);
    expect(clean.rows).toEqual([]);
  });

  it('reconcile names the receipts made before the watcher started, which were never credited', async () => {
    await stack.stopWatcher();
    const c = await customerWithAddress(stack);
    // While no watcher runs: a direct TRX transfer and a batch payout (USDT log and TRX internal transfer).
    const direct = await sendTrx(stack.devnet, 2, c.address, 4_000_000);
    const forwarded = await multiSend(3, [c.address], [7_000_000n], [1_500_000n]);
    const paid = await produceBlocks(stack.devnet, 1);
    // The watcher starts after those blocks (its start block is past them), then scans on.
    await stack.rt.pool.query('DELETE FROM deposit_watcher_position');
    await stack.startWatcher({ DEPOSIT_SCAN_FROM_BLOCK: String(paid + 1) });
    const head = await produceBlocks(stack.devnet, CONFIRMATIONS + 1);
    await settled(stack, head);
    expect((await balanceOf(stack, c)).balance_sun).toBe(0);

    const check = depositsReconcileCheck({ cfg: stack.world.cfg, pool: stack.rt.pool }, { windowBlocks: 50 });
    expect(check.name).toBe('deposits');
    const rows = await check.run();
    const truth = [...(await receiptsOnChain(forwarded, [c.address]))];
    expect(truth).toHaveLength(2);
    expect(rows.map((r) => [r.address, r.txid, r.asset, r.amount, r.status, r.deposit_id]).sort()).toEqual([
      [c.address, direct, 'TRX', '4000000', 'not_credited', direct],
      ...truth.map((t) => [c.address, forwarded, t.asset, t.amount.toString(), 'not_credited', t.depositId]),
    ].sort());
    expect(rows.find((r) => r.txid === direct)?.block_number).toBe(paid);
    expect(rows.map((r) => r.kind).sort()).toEqual(['internal', 'log', 'transfer']);

    // A deposit row no receipt on chain backs (written by hand, removed after): reported the other way round.
    const ghost = 'ab'.repeat(32);
    await stack.rt.pool.query(
      `INSERT INTO deposits (deposit_id, account_id, asset, address, sender, txid, log_index, block_number, block_timestamp, amount,
         confirmations_required, status, amount_sun, seen_at)
       VALUES ($1, $2, 'USDT', $3, NULL, $4, 0, $5, now(), 1, $6, 'held_below_min', 0, now())`,
      [`${ghost}:0`, c.accountId, c.address, ghost, paid, CONFIRMATIONS],
    );
    try {
      const withGhost = await check.run();
      expect(withGhost.filter((r) => r.status === 'no_receipt_on_chain')).toEqual([{
        address: c.address, txid: ghost, asset: 'USDT', amount: '1', status: 'no_receipt_on_chain', deposit_id: `${ghost}:0`, block_number: paid, kind: 'held_below_min',
      }]);
      expect(withGhost.filter((r) => r.status === 'not_credited')).toEqual(rows);
    } finally {
      await stack.rt.pool.query('DELETE FROM deposits WHERE deposit_id = $1', [`${ghost}:0`]);
    }
    // Out of the range asked, nothing is reported.
    expect((await reconcileDeposits({ cfg: stack.world.cfg, pool: stack.rt.pool }, { fromBlock: paid + 1 })).rows).toEqual([]);
  });
});
