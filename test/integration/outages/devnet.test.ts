/**
 * The chain node (this test's own devnet) not answering for 30 s (SIGSTOP: connections accepted, nothing
 * answered, as a hung node) while orders, deposits and webhooks flow: the API answers 201 or 503, never a
 * 500; afterwards every order is active or failed, charged once when active, delegated once (ops
 * reconcile agrees with the chain), every deposit credited once, every event delivered.
 */
import { outageTest, summary } from '../../support/outage-stack';

outageTest('devnet silent 30 s: no 500, nothing delegated or charged twice, all delivered after', {
  label: 'devnetout', part: 'devnet',
  // Frozen, not stopped: SIGSTOP, then SIGCONT (also before the stack's stop, should the test fail midway).
  take: { ofStack: (stack) => ({ url: stack.devnet.url, stop: async () => stack.devnet.freeze(), start: async () => stack.devnet.thaw(), destroy: async () => undefined }) },
  leadMs: 4_000, awayMs: 30_000, afterMs: 8_000,
}, ({ load, down, back }) => {
  const during = load.answers.filter((a) => a.at >= down && a.at < back);
  console.log(`devnet outage: during ${summary(during)}; all ${summary(load.answers)}`);
  expect(load.answers.filter((a) => ![200, 201, 503].includes(a.status))).toEqual([]);
});
