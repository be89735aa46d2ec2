/**
 * The dispatcher as its own process, killed with SIGKILL mid-delivery and restarted, twice, while
 * credits keep coming: every event is delivered at least once, none is lost, the retries scheduled
 * before a kill are honoured after it (due times are in PostgreSQL), and one account's events still get
 * their first attempts in log order (the delivery order rule: retries do not hold later events back).
 * The receiver fails each event's first attempt and answers slowly, so kills land between attempts and
 * during them.
 */
import type { CommandBus } from '../../../services/platform/command-bus';
import type { Runtime } from '../../../services/runtime';
import { parseJson } from '../../../services/platform/json';
import { startRoles, type Stoppable } from '../../../services/roles';
import { startService, type ServiceProcess } from '../../support/service-process';
import { startReceiver, testCa, type ReceivedRequest, type Receiver } from '../../support/https-receiver';
import { createAccount, credit, deliveriesOf, insertEndpoint } from '../../support/webhooks';
import { dropWorld, eventually, newWorld, openBus, openRuntime, type World } from '../../support/world';

let world: World;
let rt: Runtime;
let bus: CommandBus;
let roles: Stoppable[] = [];
let rcv: Receiver;
let service: ServiceProcess | undefined;
const answered200: ReceivedRequest[] = [];

beforeAll(async () => {
  world = newWorld('whcrash', {
    CLOCK_SCALE: '10', CLOCK_ORIGIN_MS: String(Date.now()), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', COMMAND_TIMEOUT_MS: '20000',
  });
  rt = await openRuntime(world);
  bus = await openBus(rt);
  roles = await startRoles(rt, ['processor', 'relay']);
  const firstSeen = new Set<string>();
  rcv = await startReceiver((r) => {
    const id = r.headers['x-event-id'];
    if (!firstSeen.has(id)) {
      firstSeen.add(id);
      return { status: 500 };
    }
    answered200.push(r);
    return { status: 200, delayMs: 150 };
  });
});

afterAll(async () => {
  await service?.kill('SIGKILL');
  await Promise.allSettled(roles.map((r) => r.stop()));
  await rcv?.close();
  await bus?.stop();
  await rt?.close();
  if (world) await dropWorld(world);
});

const startDispatcherProcess = async () => {
  const s = startService(world, 'dispatcher', { NODE_EXTRA_CA_CERTS: testCa().caPath });
  await s.ready;
  return s;
};

test('SIGKILL mid-delivery, twice: every event delivered at least once, first attempts in order per account, none lost', async () => {
  const accounts = [await createAccount(rt, bus), await createAccount(rt, bus), await createAccount(rt, bus)];
  for (const a of accounts) await insertEndpoint(rt, a, rcv.url);
  const perAccount = 8;
  const producing = Promise.all(accounts.map(async (a) => {
    for (let i = 1; i <= perAccount; i++) {
      await credit(bus, a, BigInt(i));
      await new Promise((r) => setTimeout(r, 150));
    }
  }));

  service = await startDispatcherProcess();
  for (let kill = 0; kill < 2; kill++) {
    await eventually(async () => rcv.requests.length >= 6 * (kill + 1), 60_000, 'deliveries under way');
    await service.kill('SIGKILL');
    service = await startDispatcherProcess();
  }
  await producing;

  const events = await rt.pool.query(
    "SELECT message_id, account_id FROM outbox WHERE destination = 'account-events' AND account_id = ANY($1::text[]) ORDER BY id",
    [accounts],
  );
  expect(events.rows).toHaveLength(accounts.length * perAccount);
  for (const a of accounts) {
    await eventually(async () => {
      const rows = await deliveriesOf(rt, a);
      return rows.length === perAccount && rows.every((d) => d.state === 'delivered');
    }, 90_000, `every delivery of ${a}`);
  }

  for (const e of events.rows) expect(answered200.some((r) => r.headers['x-event-id'] === e.message_id)).toBe(true);
  // Per account, the first attempt of each event follows the log order (amounts 1..8), kills or not.
  for (const a of accounts) {
    const order: number[] = [];
    for (const r of rcv.requests) {
      const env = parseJson(r.raw.toString()) as { account_id: string; data: { amount_sun: number } };
      if (env.account_id === a && !order.includes(env.data.amount_sun)) order.push(env.data.amount_sun);
    }
    expect(order).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  }
});
