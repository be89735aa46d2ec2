/**
 * The chain node (this test's own devnet) not answering for 30 s (SIGSTOP: connections accepted, nothing
 * answered, as a hung node) while orders, deposits and webhooks flow: the API answers 201 or 503, never a
 * 500; afterwards every order is active or failed, charged once when active, delegated once (ops
 * reconcile agrees with the chain), every deposit credited once, every event delivered.
 */
import { startLoad, startOutageStack, summary, verifyAfterOutage, type OutageStack } from '../../support/outage-stack';

let stack: OutageStack;

beforeAll(async () => {
  stack = await startOutageStack('devnetout', {});
}, 120_000);

afterAll(async () => {
  stack?.devnet.thaw();
  await stack?.stop();
}, 120_000);

test('devnet silent 30 s: no 500, nothing delegated or charged twice, all delivered after', async () => {
  const load = await startLoad(stack);
  await new Promise((r) => setTimeout(r, 4_000));
  stack.devnet.freeze();
  const down = Date.now();
  await new Promise((r) => setTimeout(r, 30_000));
  stack.devnet.thaw();
  const back = Date.now();
  await new Promise((r) => setTimeout(r, 8_000));
  await load.stop();

  const during = load.answers.filter((a) => a.at >= down && a.at < back);
  console.log(`devnet outage: during ${summary(during)}; all ${summary(load.answers)}`);
  expect(load.answers.filter((a) => ![200, 201, 503].includes(a.status))).toEqual([]);

  await verifyAfterOutage(stack, load);
}, 300_000);
