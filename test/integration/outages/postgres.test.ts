/**
 * PostgreSQL (this test's own cluster) stopped at once (pg_ctl -m immediate, as a crash) and started again
 * 5 s later while orders, deposits and webhooks flow: the API answers 201 or 503 (never a 500), every role
 * reconnects by itself, and afterwards nothing is lost or applied twice (verifyAfterOutage, replay at stop).
 */
import { privatePostgres } from '../../support/private-infra';
import { outageTest, summary } from '../../support/outage-stack';

outageTest('PostgreSQL restarted: 201 or 503, roles reconnect, nothing lost or applied twice', {
  label: 'pgout', part: 'postgres',
  take: { open: privatePostgres, env: (url) => ({ DATABASE_URL: url }) },
  leadMs: 4_000, awayMs: 5_000, afterMs: 25_000,
}, ({ load, down, back }) => {
  const after = load.answers.filter((a) => a.at >= back + 8_000);
  console.log(`postgres restart: down..back+8s ${summary(load.answers.filter((a) => a.at >= down && a.at < back + 8_000))}; after ${summary(after)}`);
  expect(load.answers.filter((a) => ![200, 201, 503].includes(a.status))).toEqual([]);
  // Both customers' orders accepted again (a count of answers would judge the machine's speed: on a loaded
  // one an answer takes several seconds); and nothing but acceptances from 8 s after the restart.
  expect(new Set(after.map((a) => a.clientOrderId.replace(/-\d+$/, ''))).size).toBe(2);
  expect(after.filter((a) => a.status !== 201 && a.status !== 200)).toEqual([]);
});
