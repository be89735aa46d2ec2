/**
 * `make chaos` (not part of make test): mixed load (orders, TRX deposits, webhooks) for a few minutes on
 * infrastructure of its own (private Kafka, Redis and PostgreSQL from test/support/private-infra.ts, its
 * own devnet; only the schema registry is the shared test stack's), with every role in a child process.
 * Each round: a SIGKILL storm (every child killed at a random moment and started again), then one outage
 * in turn: Kafka stopped 20 s, Redis stopped 15 s, the devnet frozen 30 s, PostgreSQL restarted.
 * Afterwards it lets things settle and prints the invariants checked with their counts (all 0 = pass;
 * exit code 1 otherwise). CHAOS_ROUNDS (default 4).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { derivedId } from '../../services/domain/ids';
import { reconcileOnce } from '../../services/reconciler/run';
import { replayAndVerify } from '../../services/ops/replay';
import { freePort, startDevnet } from '../devnet/start-devnet';
import { startReceiver, testCa } from '../support/https-receiver';
import { startLoad, type OutageStack } from '../support/outage-stack';
import { privateKafka, privatePostgres, privateRedis } from '../support/private-infra';
import { startService, type ServiceProcess } from '../support/service-process';
import { OPEN_BUDGETS } from '../support/identity';
import { dropWorld, newWorld, openBus, openRuntime } from '../support/world';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 4);
const LOG_DIR = process.env.CHAOS_LOG_DIR ?? path.join(os.tmpdir(), 'chaos-logs');
const GROUPS = ['api', 'processor,relay', 'dispatcher,deposit-watcher', 'broadcaster,confirmer,scheduler'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (msg: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** What was started, stopped in reverse order at the end, also when the run fails midway (the private
 * instances hold fixed ports: left running, they would break the next run). */
const teardown: Array<() => Promise<unknown>> = [];
const tearDown = async () => {
  for (const step of teardown.splice(0).reverse()) await step().catch((err) => console.error(`teardown: ${err}`));
};

async function main(): Promise<void> {
  fs.rmSync(LOG_DIR, { recursive: true, force: true });
  fs.mkdirSync(LOG_DIR, { recursive: true });
  say(`role groups log to ${LOG_DIR}`);
  const kafka = await privateKafka();
  teardown.push(() => kafka.destroy());
  const redis = await privateRedis();
  teardown.push(() => redis.destroy());
  const pg = await privatePostgres();
  teardown.push(() => pg.destroy());
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  teardown.push(() => devnet.stop());
  const apiPort = await freePort();
  const world = newWorld('chaos', {
    ...OPEN_BUDGETS, KAFKA_BROKERS: kafka.url, REDIS_URL: redis.url, DATABASE_URL: pg.url, API_PORT: String(apiPort),
    TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: '200', COMMAND_TIMEOUT_MS: '10000', ORDER_WAIT_WINDOW_MS: '120000',
    USDT_CONTRACT: devnet.accounts.usdt_contract, DEX_POOL_ADDRESS: devnet.accounts.dex_pool, USDT_RATE_SOURCE: 'fixed_env', USDT_FIXED_RATE: '3.5',
    DEPOSIT_CONFIRMATIONS: '3', DEPOSIT_POLL_MS: '200', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'error',
    NODE_EXTRA_CA_CERTS: testCa().caPath,
  });
  const rt = await openRuntime(world);
  const bus = await openBus(rt);
  const children = new Map<string, ServiceProcess>();
  teardown.push(() => Promise.allSettled([...children.values()].map((c) => c.kill('SIGKILL'))));
  const start = async (group: string) => {
    const child = startService(world, group); // logs at info: readiness is its "started" line
    // Every line of every start, kept whole for reading afterwards (the in-memory output keeps only the tail).
    const file = fs.createWriteStream(path.join(LOG_DIR, `${group.replace(/,/g, '+')}.log`), { flags: 'a' });
    child.child.stdout!.pipe(file);
    child.child.stderr!.pipe(file);
    children.set(group, child);
    await child.ready;
  };
  for (const group of GROUPS) await start(group);
  const receiver = await startReceiver();
  const stack = { devnet, world, rt, bus, receiver, base: `http://127.0.0.1:${apiPort}` } as OutageStack;
  say(`stack up: ${GROUPS.length} child processes, private Kafka ${kafka.url}, Redis ${redis.url}, PostgreSQL ${pg.url}`);

  const load = await startLoad(stack, 300);
  let kills = 0;
  const outages = [
    { name: 'Kafka stopped 20 s', run: async () => (await kafka.stop(), await sleep(20_000), await kafka.start()) },
    { name: 'Redis stopped 15 s', run: async () => (await redis.stop(), await sleep(15_000), await redis.start()) },
    { name: 'devnet frozen 30 s', run: async () => (devnet.freeze(), await sleep(30_000), devnet.thaw()) },
    { name: 'PostgreSQL restarted', run: async () => (await pg.stop(), await sleep(5_000), await pg.start()) },
  ];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const group of [...GROUPS].sort(() => Math.random() - 0.5)) {
      await sleep(1_000 + Math.random() * 3_000);
      await children.get(group)!.kill('SIGKILL');
      kills += 1;
      await start(group);
    }
    const outage = outages[(round - 1) % outages.length];
    say(`round ${round}: ${GROUPS.length} SIGKILLs done, now ${outage.name}`);
    await outage.run();
    await sleep(5_000);
  }
  const loadFailure = await load.stop().then(() => null, (err: Error) => err.message);
  say(`load stopped: ${load.answers.length} order answers, ${load.deposits.length} deposits sent, ${kills} SIGKILLs; settling`);

  const counts = await settleAndCount(stack, load);
  if (loadFailure) counts['unexpected client answers'] = 1;
  console.log('\nchaos invariants (0 = held):');
  for (const [name, n] of Object.entries(counts)) console.log(`  ${name.padEnd(44)} ${n}`);
  const statuses = new Map<string, number>();
  for (const a of load.answers) statuses.set(String(a.code ?? a.status), (statuses.get(String(a.code ?? a.status)) ?? 0) + 1);
  console.log(`order answers by status/code: ${JSON.stringify(Object.fromEntries(statuses))}${loadFailure ? `; load failed: ${loadFailure}` : ''}`);
  const { rows: open } = await rt.pool.query("SELECT status, count(*)::int AS n FROM orders WHERE status NOT IN ('active', 'failed') GROUP BY status");
  if (open.length > 0) {
    console.log(`orders not settled by status: ${JSON.stringify(Object.fromEntries(open.map((r) => [r.status, r.n])))}`);
    await describeUnsettled(rt);
  }
  // A role group that died by itself (not one of the storm's kills) leaves its work undone: say which, and why.
  for (const [group, child] of children) {
    const errors = child.output().split('\n').filter((l) => /"level":"(error|fatal)"/.test(l));
    const gone = child.child.exitCode !== null || child.child.signalCode !== null;
    if (gone) console.log(`role group ${group} exited by itself (${child.child.exitCode ?? child.child.signalCode}):\n${child.output().slice(-2_000)}`);
    if (errors.length > 0) console.log(`role group ${group}: ${errors.length} error lines since its last start, the last:\n  ${errors.slice(-5).join('\n  ')}`);
    const warnings = child.output().split('\n').filter((l) => /"level":"warn"/.test(l));
    if (Object.values(counts).some((n) => n > 0) && warnings.length > 0) console.log(`role group ${group}: ${warnings.length} warnings since its last start, the last:\n  ${warnings.slice(-5).map((l) => l.slice(0, 400)).join('\n  ')}`);
  }

  await Promise.allSettled([...children.values()].map((c) => c.kill('SIGKILL')));
  await receiver.close();
  await bus.stop();
  await rt.close().catch(() => undefined);
  await dropWorld(world).catch(() => undefined);
  await tearDown();
  process.exit(Object.values(counts).some((n) => n > 0) ? 1 : 0);
}

/**
 * For each order not settled (at most 10): its age, what it holds, and what the processor answered to the
 * confirmer's settle command for it, so a stuck order says which step it is stuck at.
 */
async function describeUnsettled(rt: Awaited<ReturnType<typeof openRuntime>>): Promise<void> {
  const { rows } = await rt.pool.query(`SELECT id, status, created_at, allocations, account_id FROM orders
    WHERE status NOT IN ('active', 'failed') ORDER BY created_at LIMIT 10`);
  for (const o of rows) {
    const settle = derivedId('command', 'order-settle', o.id);
    const { rows: results } = await rt.pool.query('SELECT outcome, refusal_reason, error, processed_at FROM command_results WHERE command_id = $1', [settle]);
    const { rows: txs } = await rt.pool.query('SELECT tx_id FROM order_tx_ids WHERE order_id = $1', [o.id]);
    console.log(`  ${o.id} ${o.status} created ${new Date(o.created_at).toISOString()} (${Math.round((Date.now() - new Date(o.created_at).getTime()) / 1000)} s ago), `
      + `allocations ${JSON.stringify(o.allocations ?? []).slice(0, 300)}, stored txs ${txs.length}, settle command: ${results.length ? JSON.stringify(results[0]) : 'none'}`);
  }
}

/** Waits (bounded) for orders, deposits and deliveries to settle, then counts every broken invariant. */
async function settleAndCount(stack: OutageStack, load: Awaited<ReturnType<typeof startLoad>>): Promise<Record<string, number>> {
  const { rt } = stack;
  const q = async (sql: string, params: unknown[] = []) => Number((await rt.pool.query(sql, params)).rows[0].n);
  const unsettled = async () =>
    (await q("SELECT count(*)::int AS n FROM orders WHERE status NOT IN ('active', 'failed')"))
    + (load.deposits.length - (await q('SELECT count(DISTINCT txid)::int AS n FROM deposits WHERE txid = ANY($1)', [load.deposits])))
    + (await q("SELECT count(*)::int AS n FROM webhook_deliveries WHERE state <> 'delivered'"));
  for (let i = 0; i < 120 && (await unsettled().catch(() => 1)) > 0; i++) await sleep(1_500);
  const received = new Set(stack.receiver.requests.map((r) => JSON.parse(r.raw.toString()).event_id));
  const { rows: delivered } = await rt.pool.query('SELECT DISTINCT event_id FROM webhook_deliveries');
  const accepted = [...new Set(load.answers.filter((a) => a.status === 201 || a.status === 200).map((a) => a.clientOrderId))];
  // The outbox not yet on the log (the relay's backlog), said before the replay, which waits for it.
  const { rows: backlog } = await rt.pool.query(`SELECT destination, count(*)::int AS n, min(created_at) AS oldest FROM outbox_unpublished
    GROUP BY destination`);
  if (backlog.length > 0) {
    console.log(`outbox not published: ${JSON.stringify(backlog)}`);
    // Who holds the relay's leader lock, and what every other session waits on.
    const { rows: sessions } = await rt.pool.query(`SELECT a.pid, a.state, a.wait_event_type, a.wait_event, a.backend_start, a.xact_start,
        left(a.query, 160) AS query, (SELECT string_agg(l.objid::text, ',') FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted) AS advisory
      FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() ORDER BY a.backend_start`);
    for (const row of sessions) console.log(`  session ${JSON.stringify(row)}`);
  }
  const replay = await replayAndVerify(rt).catch((err: Error) => {
    console.log(`replay failed: ${err.message}`);
    return { tables: [{ differences: [err.message] }] };
  });
  return {
    'double charges (order charged != once if active)': await q(`SELECT count(*)::int AS n FROM (SELECT o.id FROM orders o
      LEFT JOIN journals j ON j.order_id = o.id AND j.kind = 'order_charge' GROUP BY o.id, o.status
      HAVING count(j.id) <> CASE WHEN o.status = 'active' THEN 1 ELSE 0 END) x`),
    'double delegations (ops reconcile findings)': (await reconcileOnce(rt)).findings,
    'orders not settled (not active/failed)': await q("SELECT count(*)::int AS n FROM orders WHERE status NOT IN ('active', 'failed')"),
    'lost orders (201 answered, no order)': accepted.length - (await q('SELECT count(*)::int AS n FROM orders WHERE client_order_id = ANY($1)', [accepted])),
    'lost deposits (sent, not credited once)': load.deposits.length - (await q(
      'SELECT count(*)::int AS n FROM (SELECT txid FROM deposits WHERE txid = ANY($1) GROUP BY txid HAVING count(*) = 1) x', [load.deposits])),
    'lost events (delivery not delivered)': await q("SELECT count(*)::int AS n FROM webhook_deliveries WHERE state <> 'delivered'"),
    'lost events (never reached the receiver)': delivered.filter((d: any) => !received.has(d.event_id)).length,
    'unbalanced journals': await q('SELECT count(*)::int AS n FROM (SELECT journal_id FROM journal_lines GROUP BY journal_id, currency HAVING sum(amount) <> 0) x'),
    'balances differing from their lines': await q(`SELECT count(*)::int AS n FROM (SELECT a.id FROM accounts a LEFT JOIN journal_lines l
      ON l.ledger_account = 'customer:' || a.id || ':trx' AND l.currency = 'TRX' GROUP BY a.id, a.balance_sun HAVING a.balance_sun <> coalesce(sum(l.amount), 0)) x`),
    'replay differences (rows)': replay.tables.reduce((n, t) => n + t.differences.length, 0),
  };
}

main().catch(async (err) => {
  console.error(err);
  await tearDown();
  process.exit(1);
});
