/**
 * The two halves of an orders SIGKILL test (test/integration/orders/crash.test.ts, grouped-crash.test.ts):
 * signed orders to fresh receivers placed through the API while roles die, and what must hold afterwards.
 */
import { TronWeb } from 'tronweb';
import type { CrashStack } from './crash-stack';
import { newWallet, type Customer } from './identity';
import { assertLedgerInvariants } from './ledger-invariants';
import { chainDelegations, chargesByOrder, landedDelegations, orderCall } from './orders';
import { eventually } from './world';

/** `count` orders, 16 at a time, each retried with its client_order_id until answered (503 while the processor is down). */
export async function placeOrders(crash: CrashStack, customer: Customer, count: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const body = { resource: 'energy', amount: 30_000, tier: '1h', receiver: (await newWallet()).address, client_order_id: `${label}-${i}` };
      for (;;) {
        const reply = await orderCall(crash, customer, 'POST', '/v1/orders', body);
        if (reply.status === 201 || reply.status === 200) {
          ids[i] = reply.body.id;
          break;
        }
        if (reply.status < 500 && reply.body?.error?.code !== 1002) throw new Error(`order ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
        await new Promise((r) => setTimeout(r, 1_100));
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return ids;
}

/**
 * Every order ends active or failed, charged at most once (exactly once when delivered), its stake
 * delegated once (the devnet's delegation to its receiver is exactly what the stored set says, nothing for
 * a failed order), signed once (the stored set is the only one); the ledger balances.
 */
export async function expectDeliveredOnce(crash: CrashStack, count: number): Promise<void> {
  const { rt, devnet } = crash;
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM orders WHERE status NOT IN ('active', 'failed')");
    return rows[0].n === 0;
  }, 180_000, 'every order active or failed');
  const { rows: orders } = await rt.pool.query('SELECT id, status, receiver, allocations FROM orders');
  expect(orders.length).toBe(count);
  const charged = await chargesByOrder(rt.pool);
  const { rows: signed } = await rt.pool.query("SELECT order_id, command FROM order_signatures WHERE purpose = 'allocate'");
  const signedSets = new Map(signed.map((r: any) => [r.order_id, JSON.parse(r.command).txs.map((t: any) => t.txId)]));
  const tronWeb = new TronWeb({ fullHost: devnet.url });
  let active = 0;
  for (const o of orders) {
    expect(charged.get(o.id) ?? 0).toBe(o.status === 'active' ? 1 : 0);
    if (o.allocations.length > 0) expect(signedSets.get(o.id)).toEqual((o.allocations as any[]).map((a) => a.txId));
    if (o.status === 'active') active += 1;
    expect(await chainDelegations(tronWeb, o.receiver)).toEqual(o.status === 'active' ? landedDelegations(o.allocations) : new Map());
  }
  expect(active).toBeGreaterThan(count * 0.9);
  await assertLedgerInvariants(rt.pool);
}
