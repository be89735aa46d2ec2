/**
 * Deposit rate (issue 31, item 5) on a devnet of its own: with a window of 5 blocks, a pool price moved
 * for the one block that confirms a deposit does not set its rate; with a band around a reference, a rate
 * outside it holds the deposit for review (nothing credited), and one inside credits as before.
 */
import {
  balanceOf, CONFIRMATIONS, customerWithAddress, produceBlocks, sendUsdt, settled, startDepositStack, type DepositStack,
} from '../../support/deposits';

let stack: DepositStack;

beforeAll(async () => {
  stack = await startDepositStack('deprate');
  await stack.devnet.post('/admin/faucet', { to: stack.devnet.accounts.customers[1].address, usdt: 5_000_000_000 });
  await produceBlocks(stack.devnet, 1);
});
afterAll(async () => {
  await stack?.stop();
});

async function depositRow(txid: string) {
  return (await stack.rt.pool.query('SELECT * FROM deposits WHERE txid = $1', [txid])).rows[0];
}

/** One block at a time, each seen by the watcher (its rate cache lasts 1 s). */
async function blocksOneByOne(count: number): Promise<number> {
  let head = 0;
  for (let i = 0; i < count; i++) {
    head = await produceBlocks(stack.devnet, 1);
    await new Promise((r) => setTimeout(r, 1_200));
  }
  return head;
}

test('a price moved for the confirming block moves the credit rate by a fifth of the move, not to it', async () => {
  await stack.devnet.post('/admin/price', { trx_per_usdt: '4' });
  await stack.startWatcher({ USDT_RATE_SOURCE: 'dex_v3', USDT_TWAP_BLOCKS: '5' });
  await blocksOneByOne(6);
  const customer = await customerWithAddress(stack);
  const txid = await sendUsdt(stack.devnet, 1, customer.address, 20_000_000);
  await blocksOneByOne(CONFIRMATIONS);
  // The manipulated block: the one that confirms the deposit.
  await stack.devnet.post('/admin/price', { trx_per_usdt: '40' });
  await settled(stack, await blocksOneByOne(1));
  const row = await depositRow(txid);
  expect(row.status).toBe('credited');
  expect(row.rate_source).toMatch(/^dex_v3_twap5@\d+$/);
  // Spot would be 40 TRX (39,980,000 SUN after 5 bps); the 5-block mean is at most (4 x 4 + 40) / 5 = 11.2 TRX.
  expect(Number(row.rate)).toBeGreaterThanOrEqual(3_997_999);
  expect(Number(row.rate)).toBeLessThanOrEqual(11_200_000);
  expect((await balanceOf(stack, customer)).balance_sun).toBe(Number(row.amount_sun));
  await stack.stopWatcher();
});

test('outside the band around the reference a deposit is held for review; inside it is credited', async () => {
  await stack.devnet.post('/admin/price', { trx_per_usdt: '8' });
  await produceBlocks(stack.devnet, 1);
  await stack.startWatcher({ USDT_RATE_SOURCE: 'dex_v3', USDT_TWAP_BLOCKS: '1', USDT_REFERENCE_RATE: '4', USDT_RATE_BAND_BPS: '1000' });
  const customer = await customerWithAddress(stack);
  const held = await sendUsdt(stack.devnet, 1, customer.address, 20_000_000);
  await settled(stack, await produceBlocks(stack.devnet, CONFIRMATIONS + 1));
  expect(await depositRow(held)).toMatchObject({ status: 'held_for_review', journal_id: null });
  expect((await balanceOf(stack, customer)).balance_sun).toBe(0);

  await stack.devnet.post('/admin/price', { trx_per_usdt: '4.2' });
  await blocksOneByOne(1); // past the watcher's 1 s rate cache
  const credited = await sendUsdt(stack.devnet, 1, customer.address, 10_000_000);
  await settled(stack, await produceBlocks(stack.devnet, CONFIRMATIONS + 1));
  const row = await depositRow(credited);
  expect(row.status).toBe('credited');
  expect(Number(row.rate)).toBeGreaterThan(4_150_000);
  expect((await balanceOf(stack, customer)).balance_sun).toBe(Number(row.amount_sun));
  expect((await depositRow(held)).status).toBe('held_for_review');
  await stack.stopWatcher();
});
