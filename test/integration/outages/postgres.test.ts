/**
 * PostgreSQL (this test's own cluster) stopped at once (pg_ctl -m immediate, as a crash) and started again
 * 5 s later while orders, deposits and webhooks flow: the API answers 201 or 503 (never a 500), every role
 * reconnects by itself, and afterwards nothing is lost or applied twice (verifyAfterOutage, replay at stop).
 */
import { privatePostgres, type Outageable } from '../../support/private-infra';
import { startLoad, startOutageStack, summary, verifyAfterOutage, type OutageStack } from '../../support/outage-stack';

let pg: Outageable;
let stack: OutageStack;

beforeAll(async () => {
  pg = await privatePostgres();
  stack = await startOutageStack('pgout', { DATABASE_URL: pg.url });
}, 120_000);

afterAll(async () => {
  // The private instance goes whatever the stack's stop says (its replay check may throw).
  try {
    await stack?.stop();
  } finally {
    await pg?.destroy();
  }
}, 120_000);

test('PostgreSQL restarted: 201 or 503, roles reconnect, nothing lost or applied twice', async () => {
  const load = await startLoad(stack);
  await new Promise((r) => setTimeout(r, 4_000));
  await pg.stop();
  const down = Date.now();
  await new Promise((r) => setTimeout(r, 5_000));
  await pg.start();
  const back = Date.now();
  await new Promise((r) => setTimeout(r, 15_000));
  await load.stop();

  const after = load.answers.filter((a) => a.at >= back + 8_000);
  console.log(`postgres restart: down..back+8s ${summary(load.answers.filter((a) => a.at >= down && a.at < back + 8_000))}; after ${summary(after)}`);
  expect(load.answers.filter((a) => ![200, 201, 503].includes(a.status))).toEqual([]);
  expect(after.length).toBeGreaterThan(3);
  expect(after.filter((a) => a.status !== 201 && a.status !== 200)).toEqual([]);

  await verifyAfterOutage(stack, load);
}, 300_000);
