/**
 * Stake of an order whose own delegation landed but was not counted (issue 10 follow-up), on the devnet,
 * reading the chain: another order's stake to the same receiver went missing, so past the wait window the
 * pool's delegated balance does not cover both; the new order fails and is refunded, its landed delegation
 * is named stranded in the settlement, and the scheduler takes back by itself what of it is not the staying
 * order's, without `ops reconcile --repair`. One pool address; broadcaster, confirmer and scheduler run
 * in-process on a clock 10x real time. Ends with ops reconcile clean.
 */
import { poolSigners } from '../../../services/chain/pool-keys';
import { ChainWriter, uniqueRef } from '../../../services/chain/writes';
import type { Customer } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { chainCall, delegatedEnergy, fundedCustomer, orderEvents, orderRow, postOrder, startDeliveryStack, type OrderStack } from '../../support/orders';
import { assertReconciled, eventually } from '../../support/world';

const SCALE = 10;
let stack: OrderStack;
let customer: Customer;
let poolAddress: string;

beforeAll(async () => {
  stack = await startDeliveryStack('strandedstake', SCALE, { DEVNET_POOL: '1' }, { DEVNET_POOL: '1' });
  customer = await fundedCustomer(stack, 1_000_000_000n);
  poolAddress = stack.devnet.accounts.pool[0].address;
}, 120_000);

afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
}, 120_000);


async function placed(receiver: string, amount: number, done: (row: any) => boolean, what: string): Promise<any> {
  const created = await postOrder(stack, customer, { resource: 'energy', amount, tier: '1h', receiver });
  expect(created.status).toBe(201);
  return eventually(async () => {
    const row = await orderRow(stack, created.body.id);
    return done(row) && row;
  }, 90_000, what);
}

test('a failed order whose delegation landed uncovered: its stake beyond the staying order\'s goes back by itself', async () => {
  const receiver = stack.devnet.accounts.customers[3].address;
  const staying = await placed(receiver, 10_000, (r) => r.status === 'active' && r.confirm_status === 'confirmed', 'first order active');
  const stayingSun = BigInt(staying.allocations[0].sun);
  expect(await delegatedEnergy(stack, poolAddress, receiver)).toBe(stayingSun);

  // The staying order's stake is taken back out of band with the pool key: the chain now holds less than it.
  const writer = ChainWriter.fromConfig(stack.rt.cfg);
  const back = await writer.signUndelegate(poolSigners(stack.rt.cfg)[0], receiver, 'ENERGY', stayingSun, uniqueRef(await writer.refBlock(60_000), 920_001n));
  expect((await writer.broadcast(back.signedTx)).kind).toBe('accepted');
  await eventually(async () => (await delegatedEnergy(stack, poolAddress, receiver)) === 0n, 20_000, 'undelegation by hand in a block');

  // A larger order to the same receiver: its own delegation lands, but the chain does not cover both orders.
  const failed = await placed(receiver, 30_000, (r) => r.status === 'failed', 'second order failed past the window');
  const ownSun = BigInt(failed.allocations[0].sun);
  expect(ownSun).toBeGreaterThan(stayingSun);
  const ownTx = await chainCall(stack, 'gettransactionbyid', { value: failed.allocations[0].txId });
  expect(ownTx.ret[0].contractRet).toBe('SUCCESS');
  expect(failed.allocations[0]).toMatchObject({ landed: false, stranded: true });
  expect([failed.failure.slug, BigInt(failed.refunded_amount_sun)]).toEqual(['delegation_failed', BigInt(failed.total_amount_sun)]);

  // Taken back by the scheduler at once: what the staying order does not hold there.
  const closed = await eventually(async () => {
    const row = await orderRow(stack, failed.id);
    return row.reclaimed_at !== null && row;
  }, 60_000, 'stranded stake taken back');
  expect(closed.status).toBe('failed');
  const tx = await chainCall(stack, 'gettransactionbyid', { value: closed.reclaim_hash });
  const value = tx.raw_data.contract[0].parameter.value;
  expect([tx.ret[0].contractRet, tx.raw_data.contract[0].type, value.owner_address, value.receiver_address, BigInt(value.balance)])
    .toEqual(['SUCCESS', 'UnDelegateResourceContract', poolAddress, receiver, ownSun - stayingSun]);
  expect(await delegatedEnergy(stack, poolAddress, receiver)).toBe(stayingSun);
  expect((await orderEvents(stack, failed.id)).map((e) => e.type)).toEqual(['order.failed']);
  // Nothing left for ops reconcile: the chain holds exactly what the staying order expects.
  await assertReconciled(stack.rt);
}, 240_000);
