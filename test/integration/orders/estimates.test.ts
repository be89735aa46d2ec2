/**
 * POST /v1/estimates on the devnet with the chain roles running (contract.md section 11). USDT carries a
 * dynamic energy factor of 34 000 (mainnet's maximum), so transfers cost about 130k energy to a new holder
 * and 64k to an existing one. 100 transfers mixing new and existing holders, senders with and without
 * energy and bandwidth, an inactive sender and one that reverts are estimated; the returned orders placed
 * and delivered; every transfer sent with the recommended fee limit; and the chain read: none burned TRX
 * for energy or bandwidth, none failed. A mirror set of senders sends the same transfers without renting
 * and burns what `burn_sun_without_rental` said. Then concurrent requests, and the 400s.
 */
import { TronWeb } from 'tronweb';
import { newWallet, type Customer, type Wallet } from '../../support/identity';
import { assertLedgerInvariants } from '../../support/ledger-invariants';
import { fundedCustomer, isDelivered, orderCall, orderUntil, postOrder, startDeliveryStack, type OrderStack } from '../../support/orders';
import { eventually } from '../../devnet/start-devnet';
import { transferFactsFor } from '../../../services/chain/transfer-facts';

jest.setTimeout(600_000);

let stack: OrderStack;
let customer: Customer;
let usdt: string;

beforeAll(async () => {
  stack = await startDeliveryStack('estimates', 1);
  customer = await fundedCustomer(stack, 5_000_000_000_000n);
  usdt = stack.devnet.accounts.usdt_contract;
  await stack.devnet.post('/admin/energy-factor', { contract: usdt, energy_factor: 34_000 });
});
afterAll(async () => {
  if (stack) await assertLedgerInvariants(stack.rt.pool);
  await stack?.stop();
});

const estimate = (items: unknown[]) => orderCall(stack, customer, 'POST', '/v1/estimates', { items });
const wallet = (w: Wallet) => new TronWeb({ fullHost: stack.devnet.url, privateKey: w.privateKey });
const info = (txid: string): Promise<any> => eventually(async () => {
  const i: any = await stack.devnet.post('/walletsolidity/gettransactioninfobyid', { value: txid });
  return i.id ? i : undefined;
}, 30_000);

async function send(w: Wallet, tx: Promise<any>): Promise<string> {
  const signed = await wallet(w).trx.sign(await tx);
  const sent: any = await wallet(w).trx.sendRawTransaction(signed);
  if (!sent.result) throw new Error(`refused: ${JSON.stringify(sent)}`);
  return signed.txID;
}

type Kind = 'bare' | 'energy' | 'bandwidth' | 'spent';
const kinds: Kind[] = ['bare', 'bare', 'bare', 'energy', 'energy', 'bandwidth', 'bandwidth', 'spent', 'spent'];

/** A sender of `kind`: TRX and USDT, then its own energy or bandwidth stake, or its free bandwidth spent on TRX transfers. */
async function sender(kind: Kind): Promise<Wallet> {
  const w = await newWallet();
  const funded = await stack.devnet.post('/admin/faucet', { to: w.address, trx_sun: 20_000_000_000, usdt: 1_000_000_000 });
  await Promise.all(funded.txids.map(info));
  const builder = wallet(w).transactionBuilder;
  if (kind === 'energy') await info(await send(w, builder.freezeBalanceV2(10_000_000_000, 'ENERGY', w.address)));
  if (kind === 'bandwidth') await info(await send(w, builder.freezeBalanceV2(50_000_000, 'BANDWIDTH', w.address)));
  if (kind === 'spent') {
    for (let i = 0; i < 2; i++) await info(await send(w, builder.sendTrx(stack.devnet.accounts.faucet.address, 1 + i, w.address)));
  }
  return w;
}

interface Plan {
  senders: Wallet[];
  inactive: Wallet;
  empty: Wallet;
  items: Array<{ from: string; to: string; amount: string | number; token?: string }>;
}

/**
 * 98 transfers over the nine active senders (every other one to a fresh receiver, the rest to existing
 * holders), one from an inactive sender holding USDT, one from a sender with TRX and no USDT (reverts).
 */
async function plan(): Promise<Plan> {
  const senders = await Promise.all(kinds.map(sender));
  const inactive = await newWallet();
  await Promise.all((await stack.devnet.post('/admin/faucet', { to: inactive.address, usdt: 50_000_000 })).txids.map(info));
  const empty = await newWallet();
  await Promise.all((await stack.devnet.post('/admin/faucet', { to: empty.address, trx_sun: 100_000_000 })).txids.map(info));
  const holders = stack.devnet.accounts.customers.map((c) => c.address);
  const items: Plan['items'] = [];
  for (let i = 0; i < 98; i++) {
    const from = senders[i % senders.length].address;
    const to = i % 2 === 0 ? (await newWallet()).address : holders[i % holders.length];
    items.push(i % 3 === 0 ? { from, to, amount: 1_000_000 + i } : { from, to, amount: String(1_000_000 + i), token: i % 3 === 1 ? 'USDT' : usdt });
  }
  items.splice(40, 0, { from: inactive.address, to: holders[0], amount: 1_000_000 });
  items.splice(70, 0, { from: empty.address, to: holders[1], amount: 1_000_000 });
  return { senders, inactive, empty, items };
}

const byAddress = (p: Plan) => new Map([...p.senders, p.inactive, p.empty].map((w) => [w.address, w]));

/** Sends the plan's transfers that the estimate says succeed, each sender's in item order, with its fee limit. */
async function sendAll(p: Plan, estimates: any[]): Promise<Array<{ estimate: any; info: any }>> {
  const wallets = byAddress(p);
  const perSender = new Map<string, number[]>();
  estimates.forEach((e, i) => e.ok && perSender.set(e.from, [...(perSender.get(e.from) ?? []), i]));
  const out: Array<{ estimate: any; info: any }> = [];
  await Promise.all([...perSender].map(async ([from, indexes]) => {
    const w = wallets.get(from)!;
    const contract = await wallet(w).contract().at(usdt);
    for (const i of indexes) {
      const e = estimates[i];
      const txid: string = await contract.transfer(e.to, e.amount).send({ feeLimit: e.fee_limit_sun });
      out.push({ estimate: e, info: await info(txid) });
    }
  }));
  return out;
}

test('100 transfers estimated, their orders placed, sent with the fee limit: nothing burned, nothing failed; without rental they burn what was said', async () => {
  const [rented, bare] = await Promise.all([plan(), plan()]);
  const answer = await estimate(rented.items);
  expect(answer.status).toBe(200);
  const estimates: any[] = answer.body.data;
  expect(estimates).toHaveLength(100);
  expect(answer.body.chain).toMatchObject({ energy_fee_sun: 100, bandwidth_fee_sun: 1000 });
  expect(answer.body.chain.block_number).toBeGreaterThan(0);

  // The shape of the mix: the penalty is reported, new holders cost more, the inactive and empty senders stand out.
  const newHolder = estimates.find((e) => !e.receiver_holds_token && e.ok)!;
  const oldHolder = estimates.find((e) => e.receiver_holds_token && e.ok)!;
  expect([newHolder.energy_needed, newHolder.energy_penalty]).toEqual([130_460, 100_810]);
  expect([oldHolder.energy_needed, oldHolder.energy_penalty]).toEqual([64_460, 49_810]);
  expect(estimates[0].token).toBe(usdt);
  expect(estimates.every((e, i) => e.from === rented.items[i].from && e.to === rented.items[i].to && e.amount === String(rented.items[i].amount))).toBe(true);
  const inactive = estimates[40];
  expect(inactive).toMatchObject({ sender_activated: false, ok: true, bandwidth_to_rent: 0 });
  expect(inactive.orders).toEqual([{ resource: 'energy', amount: 64_460, tier: '5m', receiver: rented.inactive.address, activate: true }]);
  const reverting = estimates[70];
  expect(reverting).toMatchObject({ ok: false, orders: [], total_amount_sun: 0, error: { code: 3046, slug: 'transfer_would_fail', message: 'ERC20: transfer amount exceeds balance' } });
  expect(estimates.some((e) => e.ok && e.orders.length === 0)).toBe(true); // a staked sender's first transfers need nothing
  expect(estimates.some((e) => e.orders.some((o: any) => o.resource === 'bandwidth'))).toBe(true);
  for (const e of estimates.filter((x) => x.ok)) {
    expect(e.fee_limit_sun).toBe(Math.ceil((e.energy_needed * 100 * 1.2) / 1_000_000) * 1_000_000);
  }

  // Place every order the estimates returned and wait for delivery.
  const orders: any[] = [];
  for (const e of estimates) {
    for (const body of e.orders) {
      const placed = await postOrder(stack, customer, body);
      expect(placed.status).toBe(201);
      expect(placed.body.amount).toBe(body.amount);
      orders.push(placed.body);
    }
  }
  const totalQuoted = estimates.reduce((sum, e) => sum + e.total_amount_sun, 0);
  expect(orders.reduce((sum, o) => sum + o.total_amount_sun, 0)).toBe(totalQuoted);
  for (const o of orders) await orderUntil(stack, customer, o.id, isDelivered, 120_000);

  const sent = await sendAll(rented, estimates);
  expect(sent).toHaveLength(99);
  for (const { estimate: e, info: i } of sent) {
    expect({ from: e.from, result: i.receipt.result, fee: i.fee ?? 0, net_fee: i.receipt.net_fee ?? 0, energy_fee: i.receipt.energy_fee ?? 0 })
      .toEqual({ from: e.from, result: 'SUCCESS', fee: 0, net_fee: 0, energy_fee: 0 });
    expect(i.receipt.energy_usage_total).toBe(e.energy_needed);
  }

  // The mirror senders, estimated and sent with no rental at all (the inactive one cannot send: skipped).
  const bareAnswer = await estimate(bare.items);
  const bareEstimates: any[] = bareAnswer.body.data.map((e: any, i: number) => (i === 40 ? { ...e, ok: false } : e));
  const burned = await sendAll(bare, bareEstimates);
  expect(burned).toHaveLength(98);
  const staked = new Set(bare.senders.filter((_, k) => kinds[k] === 'energy').map((w) => w.address));
  for (const { estimate: e, info: i } of burned) {
    expect(i.receipt.result).toBe('SUCCESS');
    const fee = BigInt(i.fee ?? 0);
    // A staked sender's used energy recovers a little between its transfers (24 h window): it burns at most what was said.
    if (staked.has(e.from)) {
      expect(fee).toBeLessThanOrEqual(BigInt(e.burn_sun_without_rental));
      expect(fee).toBeGreaterThanOrEqual((BigInt(e.burn_sun_without_rental) * 99n) / 100n);
    } else {
      expect({ from: e.from, fee }).toEqual({ from: e.from, fee: BigInt(e.burn_sun_without_rental) });
    }
  }
  expect(burned.some(({ info: i }) => (i.receipt.net_fee ?? 0) > 0)).toBe(true);
  expect(burned.reduce((sum, { info: i }) => sum + (i.fee ?? 0), 0)).toBeGreaterThan(0);
});

test('concurrent estimates of the same transfers answer the same, each in its own order', async () => {
  const holders = stack.devnet.accounts.customers.map((c) => c.address);
  const items = Array.from({ length: 100 }, (_, i) => ({ from: holders[i % holders.length], to: holders[(i + 1) % holders.length], amount: 1_000 + i }));
  const facts = transferFactsFor(stack.rt.chain.reader);
  const callsBefore = facts.nodeCalls;
  const answers = await Promise.all(Array.from({ length: 8 }, () => estimate(items)));
  expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
  // Shared per block: a head read per request, and per block seen the distinct reads of one request (100
  // simulations, 5 receivers' balances, 5 senders' resources, the fees), not 8 x 300.
  const blocks = new Set(answers.map((a) => a.body.chain.block_number)).size;
  expect(facts.nodeCalls - callsBefore).toBeLessThanOrEqual(8 + blocks * (100 + 5 + 5 + 1));
  const sameBlock = answers.filter((a) => a.body.chain.block_number === answers[0].body.chain.block_number);
  for (const a of sameBlock) expect(a.body.data).toEqual(answers[0].body.data);
  expect(answers[0].body.data.map((e: any) => e.amount)).toEqual(items.map((i) => String(i.amount)));
});

test('bad input answers 400 with the field and reads nothing', async () => {
  const ok = { from: stack.devnet.accounts.customers[0].address, to: stack.devnet.accounts.customers[1].address, amount: 1 };
  const cases: Array<[unknown, string]> = [
    [Array(101).fill(ok), 'items'],
    [[], 'items'],
    [[ok, { ...ok, to: ok.to.slice(0, -1) + (ok.to.endsWith('a') ? 'b' : 'a') }], 'items[1].to'],
    [[{ ...ok, from: 'not-an-address' }], 'items[0].from'],
    [[ok, ok, { ...ok, amount: '1.5' }], 'items[2].amount'],
    [[{ ...ok, amount: 1.5 }], 'items[0].amount'],
    [[{ ...ok, amount: -3 }], 'items[0].amount'],
    [[{ ...ok, amount: '1' + '0'.repeat(78) }], 'items[0].amount'],
    [[{ ...ok, token: 'DOGE' }], 'items[0].token'],
    [[ok, { ...ok, token: (await newWallet()).address }], 'items[1].token'],
    [[{ ...ok, memo: 'x' }], 'items[0].memo'],
  ];
  for (const [items, field] of cases) {
    const reply = await estimate(items as unknown[]);
    expect({ field, status: reply.status, code: reply.body.error?.code, got: reply.body.error?.details?.field }).toEqual({ field, status: 400, code: 2000, got: field });
  }
  const unsigned = await fetch(`${stack.base}/v1/estimates`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: [ok] }) });
  expect(unsigned.status).toBe(401);
});
