/**
 * The grouped chain facts under SIGKILL mid-group: the broadcaster dies right after appending a pass's
 * `order.allocations` (before it sends the sets ahead), the confirmer right after appending a pass's
 * `order.settlements`, the processor between applying a slice that holds them and its commit (and right
 * after the commit, before the delivery notification and the answers go out); each is started again at
 * once. Afterwards no order is delegated or settled twice and none is lost (each active or failed, charged
 * once when delivered, the chain holding exactly its stored set), the groups really held several orders,
 * and a replay of the log rebuilds the database (dropWorld in crash.stop).
 */
import { startCrashStack, type CrashStack } from '../../support/crash-stack';
import { expectDeliveredOnce, placeOrders } from '../../support/order-crash';
import { fundedCustomer } from '../../support/orders';
import { readTopic } from '../../support/topic-reader';
import { eventually } from '../../support/world';

const ORDERS = 200;
const CRASH_POINTS: Record<string, string> = {
  broadcaster: 'broadcaster.after-append:0.2',
  confirmer: 'confirmer.after-append:0.2',
  processor: 'processor.before-commit:0.03,processor.after-commit:0.03',
};
const ROLES = Object.keys(CRASH_POINTS);
let crash: CrashStack;
// Calm (no crash points) while the stack starts and the customer is funded: a processor dead at its crash
// point before the watchdog runs would leave the funding unanswered.
let calm = true;

beforeAll(async () => {
  crash = await startCrashStack('groupcrash', {
    inProcess: ['relay'], children: ROLES, childEnv: (role): Record<string, string> => (calm ? {} : { CHAOS_CRASH_POINTS: CRASH_POINTS[role] }),
  });
});

afterAll(async () => {
  await crash?.stop();
});

test('SIGKILL mid-group (broadcaster after its append, confirmer after its append, processor before and after its commit): once each, none lost, replay identical', async () => {
  const customer = await fundedCustomer(crash, 10_000_000_000n);
  calm = false;
  for (const role of ROLES) await crash.restart(role);
  // A role that killed itself is started again (with its crash points while the test is not calm).
  const deaths = new Map(ROLES.map((r) => [r, 0]));
  let watching = true;
  const watchdog = (async () => {
    while (watching) {
      await new Promise((r) => setTimeout(r, 300));
      for (const role of ROLES) {
        if (!crash.exited(role)) continue;
        deaths.set(role, (deaths.get(role) ?? 0) + 1);
        await crash.restart(role).catch(() => undefined);
      }
    }
  })();

  await placeOrders(crash, customer, ORDERS, 'group');
  await eventually(async () => ROLES.every((r) => (deaths.get(r) ?? 0) >= 1), 120_000, `each role died at a crash point (${JSON.stringify([...deaths])})`);
  // Calm: every role started again without crash points, so what is left is delivered.
  calm = true;
  for (const role of ROLES) await crash.restart(role);
  watching = false;
  await watchdog;
  await expectDeliveredOnce(crash, ORDERS);

  // The facts went in groups: some pass carried several orders of the account in one command.
  const commands = (await readTopic<any>(crash.rt, 'accountCommands')).map((r) => r.value);
  const largest = (type: string) => Math.max(0, ...commands.filter((c) => c.type === type).map((c) => c.entries.length));
  expect(largest('order.allocations')).toBeGreaterThan(1);
  expect(largest('order.settlements')).toBeGreaterThan(1);
  expect(commands.filter((c) => c.type === 'order.allocate' || c.type === 'order.settle' || c.type === 'order.deliver' && c.step === 'broadcast')).toEqual([]);
}, 420_000);
