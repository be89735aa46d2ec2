/**
 * The stack of an outage test: a devnet of its own, a world whose config points some of its infrastructure
 * at a private instance (private-infra.ts) the test stops, every role that carries orders, deposits and
 * webhooks in this process, the API, and a steady mixed load (orders, TRX deposits, webhooks to a receiver)
 * whose every answer is recorded. `verify` then checks what must hold after any outage.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../services/api/app';
import { startDispatcher } from '../../services/dispatcher/dispatcher';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/platform/runtime';
import { startRoles, type Stoppable } from '../../services/roles';
import { webhookSecretBox } from '../../services/webhooks/secrets';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { sendTrx } from './deposits';
import { startReceiver, testCa, type Receiver } from './https-receiver';
import { OPEN_BUDGETS, newWallet, signUp, signedCall, type Customer } from './identity';
import { assertLedgerInvariants } from './ledger-invariants';
import { orderCall, type OrderStack } from './orders';
import { createEndpointOnLog } from './webhooks';
import { assertReconciled, dropWorld, eventually, newWorld, openBus, openRuntime, type World } from './world';

export interface OutageStack {
  devnet: Devnet;
  world: World;
  rt: Runtime;
  bus: CommandBus;
  base: string;
  receiver: Receiver;
  stop(): Promise<void>;
}

export async function startOutageStack(label: string, overrides: Record<string, string>): Promise<OutageStack> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  const world = newWorld(label, {
    ...OPEN_BUDGETS,
    TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: '200', COMMAND_TIMEOUT_MS: '10000', ORDER_WAIT_WINDOW_MS: '120000',
    USDT_CONTRACT: devnet.accounts.usdt_contract, DEX_POOL_ADDRESS: devnet.accounts.dex_pool, USDT_RATE_SOURCE: 'fixed_env', USDT_FIXED_RATE: '3.5',
    DEPOSIT_CONFIRMATIONS: '3', DEPOSIT_POLL_MS: '200', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...overrides,
  });
  const rt = await openRuntime(world);
  const bus = await openBus(rt);
  const roles: Stoppable[] = await startRoles(rt, ['processor', 'relay', 'deposit-watcher', 'broadcaster', 'confirmer', 'scheduler']);
  roles.push(await startDispatcher({
    log: rt.log, codec: rt.codec, pool: rt.pool, clock: rt.clock, secrets: webhookSecretBox(rt.cfg),
    allowPrivate: true, concurrency: 8, userAgent: 'energy-webhook/1', ca: testCa().ca,
  }));
  const receiver = await startReceiver();
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus }).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    devnet, world, rt, bus, receiver,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      await new Promise((r) => server.close(r));
      await Promise.allSettled(roles.map((r) => r.stop()));
      await receiver.close();
      await bus.stop();
      try {
        rt.pool.on('error', () => undefined);
        await dropWorld(world, rt);
      } finally {
        await rt.close().catch(() => undefined);
        await devnet.stop();
      }
    },
  };
}

export interface Answer {
  at: number;
  ms: number;
  status: number;
  code?: number;
  clientOrderId: string;
}

/** Orders, deposits and webhooks flowing until stopped; every order answer is recorded. */
export interface Load {
  answers: Answer[];
  deposits: string[];
  customers: Array<Customer & { address: string }>;
  stop(): Promise<void>;
}

/**
 * Two customers, each with a webhook endpoint on the receiver, funded by a support credit: each places
 * an order (fresh receiver, its own client_order_id, retried with the same id after a 503 as a client
 * would) every `orderEveryMs`, and a devnet wallet sends each a TRX deposit every 2 s.
 */
export async function startLoad(stack: OutageStack, orderEveryMs = 400): Promise<Load> {
  const customers: Load['customers'] = [];
  for (let i = 0; i < 2; i++) {
    const customer = await signUp(stack.base);
    const funded = await stack.bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: 5_000_000_000n, memo: 'outage test funding' });
    if (funded.outcome !== 'applied') throw new Error(`funding failed: ${JSON.stringify(funded)}`);
    await createEndpointOnLog(stack.rt, stack.bus, customer.accountId, stack.receiver.url);
    const rows = await signedCall(stack.base, customer.key, 'GET', '/v1/deposit-addresses');
    customers.push({ ...customer, address: rows.body.data[0].address });
  }
  const answers: Answer[] = [];
  const deposits: string[] = [];
  let running = true;
  const orderStack = { base: stack.base, rt: stack.rt } as unknown as OrderStack;
  const ordering = customers.map(async (customer, c) => {
    for (let i = 0; running; i++) {
      const body = { resource: 'energy', amount: 30_000, tier: '1h', receiver: (await newWallet()).address, client_order_id: `outage-${c}-${i}` };
      for (let attempt = 0; ; attempt++) {
        const t0 = Date.now();
        const reply = await orderCall(orderStack, customer, 'POST', '/v1/orders', body).catch(() => ({ status: 0, body: undefined }) as any);
        answers.push({ at: t0, ms: Date.now() - t0, status: reply.status, code: reply.body?.error?.code, clientOrderId: body.client_order_id });
        if (reply.status === 200 || reply.status === 201) break;
        if (reply.status > 0 && reply.status < 500 && reply.body?.error?.code !== 1002) throw new Error(`order: ${reply.status} ${JSON.stringify(reply.body)}`);
        if (!running && attempt > 30) throw new Error(`order ${body.client_order_id} never accepted`);
        await new Promise((r) => setTimeout(r, 1_000));
      }
      await new Promise((r) => setTimeout(r, orderEveryMs));
    }
  });
  const depositing = (async () => {
    for (let i = 0; running; i++) {
      const customer = customers[i % customers.length];
      // The devnet may be the part that is away: a send it did not take is simply not a deposit.
      const txid = await sendTrx(stack.devnet, i % 2, customer.address, 2_000_000).catch(() => undefined);
      if (txid) deposits.push(txid);
      await new Promise((r) => setTimeout(r, 2_000));
    }
  })();
  return {
    answers, deposits, customers,
    stop: async () => {
      running = false;
      await Promise.all([...ordering, depositing]);
    },
  };
}

/**
 * What must hold after an outage, once things settled: every order active or failed, charged once when
 * active and never otherwise, one order per client_order_id, every deposit credited once, every event
 * delivered to the receiver, journals balanced, the chain agreeing with the records (ops reconcile).
 * The replay check runs in stack.stop().
 */
export async function verifyAfterOutage(stack: OutageStack, load: Load): Promise<void> {
  const { rt } = stack;
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM orders WHERE status NOT IN ('active', 'failed')");
    return rows[0].n === 0;
  }, 180_000, 'every order active or failed');
  const { rows: charges } = await rt.pool.query(`
    SELECT o.id, o.status, count(j.id)::int AS n FROM orders o
    LEFT JOIN journals j ON j.order_id = o.id AND j.kind = 'order_charge' GROUP BY o.id, o.status`);
  expect(charges.filter((r: any) => r.n !== (r.status === 'active' ? 1 : 0))).toEqual([]);
  const { rows: dupOrders } = await rt.pool.query('SELECT account_id, client_order_id FROM orders WHERE client_order_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1');
  expect(dupOrders).toEqual([]);
  // Every deposit sent is credited exactly once (the watcher waits 3 confirmations).
  await eventually(async () => {
    const { rows } = await rt.pool.query('SELECT txid, count(*)::int AS n FROM deposits WHERE txid = ANY($1) GROUP BY txid', [load.deposits]);
    return rows.length === load.deposits.length && rows.every((r: any) => r.n === 1);
  }, 120_000, `${load.deposits.length} deposits credited once`);
  // Every delivery delivered, and the receiver saw each event (events may still be arising: check both at once).
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT event_id, state FROM webhook_deliveries");
    const received = new Set(stack.receiver.requests.map((r) => JSON.parse(r.raw.toString()).event_id));
    return rows.length > 0 && rows.every((d: any) => d.state === 'delivered' && received.has(d.event_id));
  }, 120_000, 'every webhook delivered and received');
  await assertLedgerInvariants(rt.pool);
  await assertReconciled(rt);
}

/** Figures of a set of answers, for the test's log line. */
export function summary(answers: Answer[]): string {
  const by = new Map<string, number>();
  for (const a of answers) by.set(String(a.code ?? a.status), (by.get(String(a.code ?? a.status)) ?? 0) + 1);
  const slowest = answers.reduce((m, a) => Math.max(m, a.ms), 0);
  return `${answers.length} answers ${JSON.stringify(Object.fromEntries(by))}, slowest ${slowest} ms`;
}
