/**
 * The stack of an outage test: a devnet of its own, a world whose config points some of its infrastructure
 * at a private instance (private-infra.ts) the test stops, every role that carries orders, deposits and
 * webhooks in this process, the API, and a steady mixed load (orders, TRX deposits, webhooks to a receiver)
 * whose every answer is recorded. `verifyAfterOutage` then checks what must hold after any outage, and
 * `outageTest` is the one shape of the four outage tests (test/integration/outages/): the stack on a part
 * that goes away, the load, the part away and back, the test's own checks, then verifyAfterOutage.
 *
 * Every wait here is bounded and fails with what it waited for: a failure must never hang silently (the
 * Kafka test once ran into jest's limit with nothing said about where it stood).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../services/api/app';
import { startDispatcher } from '../../services/dispatcher/dispatcher';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { startRoles, type Stoppable } from '../../services/roles';
import { webhookSecretBox } from '../../services/webhooks/secrets';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import type { Outageable } from './private-infra';
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
  /** 0: no HTTP answer (connection refused, or none within ANSWER_WAIT_MS: then `error` says so). */
  status: number;
  code?: number;
  error?: string;
  clientOrderId: string;
}

/** Orders, deposits and webhooks flowing until stopped; every order answer is recorded. */
export interface Load {
  answers: Answer[];
  deposits: string[];
  customers: Array<Customer & { address: string }>;
  /** Ends the load; rejects if an order got an answer no outage explains, or was never accepted. */
  stop(): Promise<void>;
}

/** What verifyAfterOutage may wait in all for things to settle. */
const VERIFY_BUDGET_MS = 300_000;
/** Longest wait for one order's HTTP answer: the command deadline (10 s), its grace and the sync wait are far less. */
const ANSWER_WAIT_MS = 30_000;
/** After stop, how long an order that has not been accepted yet is retried before the load fails. */
const WIND_DOWN_MS = 60_000;

/** `promise`, or a failure naming `what` once `ms` passed first. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
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
  const failures: Error[] = [];
  let running = true;
  let windDownUntil = Infinity;
  const orderStack = { base: stack.base, rt: stack.rt } as unknown as OrderStack;
  const ordering = customers.map(async (customer, c) => {
    for (let i = 0; running; i++) {
      const body = { resource: 'energy', amount: 30_000, tier: '1h', receiver: (await newWallet()).address, client_order_id: `outage-${c}-${i}` };
      for (let attempt = 0; ; attempt++) {
        const t0 = Date.now();
        // Bounded: an answer that never comes is recorded (status 0) and retried, not waited for forever.
        const reply = await within(orderCall(orderStack, customer, 'POST', '/v1/orders', body), ANSWER_WAIT_MS, `answer to order ${body.client_order_id}`)
          .catch((err: Error) => ({ status: 0, body: undefined, error: err.message }) as any);
        answers.push({ at: t0, ms: Date.now() - t0, status: reply.status, code: reply.body?.error?.code, error: reply.error, clientOrderId: body.client_order_id });
        if (reply.status === 200 || reply.status === 201) break;
        if (reply.status > 0 && reply.status < 500 && reply.body?.error?.code !== 1002) throw new Error(`order: ${reply.status} ${JSON.stringify(reply.body)}`);
        if (Date.now() > windDownUntil) {
          throw new Error(`order ${body.client_order_id} never accepted (${attempt + 1} attempts; last: ${reply.status} ${reply.body?.error?.code ?? reply.error ?? ''})`);
        }
        await new Promise((r) => setTimeout(r, 1_000));
      }
      await new Promise((r) => setTimeout(r, orderEveryMs));
    }
  }).map((p) => p.catch((err: Error) => void failures.push(err)));
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
      windDownUntil = Date.now() + WIND_DOWN_MS;
      await within(Promise.all([...ordering, depositing]), WIND_DOWN_MS + 2 * ANSWER_WAIT_MS, 'the load to wind down');
      if (failures.length > 0) throw failures[0];
    },
  };
}

/**
 * What must hold after an outage, once things settled: every order active or failed, charged once when
 * active and never otherwise, one order per client_order_id, every deposit credited once, every event
 * delivered to the receiver, journals balanced, the chain agreeing with the records (ops reconcile).
 * The replay check runs in stack.stop(). The waits share one budget (`budgetMs`), each bounded by its own.
 */
export async function verifyAfterOutage(stack: OutageStack, load: Load, budgetMs = VERIFY_BUDGET_MS): Promise<void> {
  const { rt } = stack;
  const until = Date.now() + budgetMs;
  const left = (ms: number) => Math.max(1_000, Math.min(ms, until - Date.now()));
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT count(*)::int AS n FROM orders WHERE status NOT IN ('active', 'failed')");
    return rows[0].n === 0;
  }, left(180_000), 'every order active or failed');
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
  }, left(120_000), `${load.deposits.length} deposits credited once`);
  // Every delivery delivered, and the receiver saw each event (events may still be arising: check both at once).
  await eventually(async () => {
    const { rows } = await rt.pool.query("SELECT event_id, state FROM webhook_deliveries");
    const received = new Set(stack.receiver.requests.map((r) => JSON.parse(r.raw.toString()).event_id));
    return rows.length > 0 && rows.every((d: any) => d.state === 'delivered' && received.has(d.event_id));
  }, left(120_000), 'every webhook delivered and received');
  await assertLedgerInvariants(rt.pool);
  await within(assertReconciled(rt), left(60_000), 'ops reconcile');
}

/** Figures of a set of answers, for the test's log line. */
export function summary(answers: Answer[]): string {
  const by = new Map<string, number>();
  for (const a of answers) by.set(String(a.code ?? a.status), (by.get(String(a.code ?? a.status)) ?? 0) + 1);
  const slowest = answers.reduce((m, a) => Math.max(m, a.ms), 0);
  return `${answers.length} answers ${JSON.stringify(Object.fromEntries(by))}, slowest ${slowest} ms`;
}

/** The part of the infrastructure an outage test takes away. */
export type OutagePart =
  /** An instance of the test's own (private-infra.ts); `env` points the stack's config at its url. */
  | { open: () => Promise<Outageable>; env: (url: string) => Record<string, string> }
  /** A part of the stack itself (the devnet). */
  | { ofStack: (stack: OutageStack) => Outageable };

export interface OutageSpec {
  /** Names the test's world (database, topics, groups). */
  label: string;
  /** What it is, for messages ("kafka"). */
  part: string;
  take: OutagePart;
  /** Load before the part goes, how long it stays away (from the moment it went), load after it is back. */
  leadMs: number;
  awayMs: number;
  afterMs: number;
  /** Runs while the part is away, from the moment it went; the part comes back once this ended and awayMs passed. */
  whileAway?: (run: { stack: OutageStack; load: Load }) => Promise<void>;
}

export interface OutageRun {
  stack: OutageStack;
  load: Load;
  /** When the part was gone (its stop returned) and when it was back (its start returned). */
  down: number;
  back: number;
}

/** Longest a stop or start of the part may take (private-infra's own bounds are below it). */
const PART_MS = 170_000;
const LOAD_START_MS = 60_000;

/**
 * One outage test: before all, the part and a stack on it; the test: the load, the part away and back, the
 * test's `check` of the answers, then verifyAfterOutage; after all, the part back if the test left it away
 * (so the stack's stop and replay check have it), the stack stopped, the part destroyed. Each step is
 * bounded and logged as it starts, so a failure says where it stood; jest's limit is the sum of the bounds.
 */
export function outageTest(title: string, spec: OutageSpec, check: (run: OutageRun) => void | Promise<void>): void {
  let part: Outageable | undefined;
  let stack: OutageStack | undefined;
  let away = false;
  /** The load while it runs: a test failing midway leaves it to afterAll, which stops it before the stack. */
  let running: Load | undefined;
  const t0 = Date.now();
  const step = async <T>(what: string, ms: number, work: () => Promise<T>): Promise<T> => {
    console.log(`[outage ${spec.label} +${Math.round((Date.now() - t0) / 1000)} s] ${what}`);
    return within(work(), ms, `${spec.part} outage test: ${what}`);
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    if ('open' in spec.take) {
      const { open, env } = spec.take;
      part = await step(`starting the private ${spec.part}`, PART_MS, open);
      stack = await step('starting the stack', 120_000, () => startOutageStack(spec.label, env(part!.url)));
    } else {
      stack = await step('starting the stack', 120_000, () => startOutageStack(spec.label, {}));
      part = spec.take.ofStack(stack);
    }
  }, PART_MS + 120_000 + 10_000);

  afterAll(async () => {
    try {
      if (away) await step(`${spec.part} back for the stack's stop`, PART_MS, () => part!.start()).catch((err) => console.log(String(err)));
      if (running) await step('stopping the load the test left running', WIND_DOWN_MS + 2 * ANSWER_WAIT_MS + 5_000, () => running!.stop()).catch((err) => console.log(String(err)));
      if (stack) await step('stopping the stack (replay check)', 150_000, () => stack!.stop());
    } finally {
      if (part) await step(`destroying the ${spec.part}`, PART_MS, () => part!.destroy());
    }
  }, 2 * PART_MS + WIND_DOWN_MS + 2 * ANSWER_WAIT_MS + 150_000 + 15_000);

  test(title, async () => {
    const load = await step('starting the load', LOAD_START_MS, () => startLoad(stack!));
    running = load;
    await sleep(spec.leadMs);
    away = true;
    await step(`stopping the ${spec.part}`, PART_MS, () => part!.stop());
    const down = Date.now();
    await step(`${spec.part} away ${spec.awayMs / 1000} s`, spec.awayMs + 120_000, async () => {
      await Promise.all([spec.whileAway?.({ stack: stack!, load }), sleep(spec.awayMs)]);
    });
    await step(`starting the ${spec.part} again`, PART_MS, () => part!.start());
    away = false;
    const back = Date.now();
    await sleep(spec.afterMs);
    running = undefined;
    await step('stopping the load', WIND_DOWN_MS + 2 * ANSWER_WAIT_MS + 5_000, () => load.stop());
    await check({ stack: stack!, load, down, back });
    await step('verifying', VERIFY_BUDGET_MS + 90_000, () => verifyAfterOutage(stack!, load));
  }, LOAD_START_MS + spec.leadMs + 2 * PART_MS + spec.awayMs + 120_000 + spec.afterMs + WIND_DOWN_MS + 2 * ANSWER_WAIT_MS + VERIFY_BUDGET_MS + 120_000);
}
