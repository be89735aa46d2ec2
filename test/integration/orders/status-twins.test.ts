/**
 * Each status rule the roles ask PostgreSQL (domain/orders/rules.ts: awaitingDelivery, inDelivery,
 * endedWithStake, closing) gives the answer of its TypeScript twin, for every status and every shape of
 * the other columns the rule reads: PostgreSQL evaluates each SQL twin over one row per case, and the
 * TypeScript rule is evaluated on the same order.
 */
import {
  awaitingDelivery, awaitingDeliverySql, closing, closingSql, endedWithStake, endedWithStakeSql, inDelivery, inDeliverySql, orderStatuses,
  type Allocation, type Order,
} from '../../../services/domain/orders/rules';
import { stringifyJson } from '../../../services/platform/json';
import { createPool, type Pool } from '../../../services/platform/db/pool';

const delegation = (extra: Partial<Allocation>): Allocation => ({ kind: 'delegate', from: 'TPool', amount: 1, sun: 1n, txId: 't', signedTx: '{}', landed: null, ...extra });
const allocationShapes: Allocation[][] = [
  [],
  [delegation({ landed: null })],
  [delegation({ landed: true })],
  [delegation({ landed: false })],
  [delegation({ landed: false, stranded: true })],
  [{ ...delegation({ landed: true }), kind: 'activate' }],
  [delegation({ landed: false }), delegation({ landed: true })],
];

type Case = Pick<Order, 'status' | 'reclaimedAt' | 'allocations' | 'undelegations'>;
const cases: Case[] = orderStatuses.flatMap((status) => allocationShapes.flatMap((allocations) =>
  [null, 1_000].flatMap((reclaimedAt) => [[], [{ from: 'TPool', sun: 1n, txId: 'u', signedTx: '{}' }]].map((undelegations) =>
    ({ status, reclaimedAt, allocations, undelegations })))));

const twins: Array<{ name: string; rule: (c: Case) => boolean; sql: (alias: string) => string }> = [
  { name: 'awaitingDelivery', rule: (c) => awaitingDelivery.includes(c.status), sql: awaitingDeliverySql },
  { name: 'inDelivery', rule: inDelivery, sql: inDeliverySql },
  { name: 'endedWithStake', rule: endedWithStake, sql: endedWithStakeSql },
  { name: 'closing', rule: closing, sql: closingSql },
];

let pool: Pool;
beforeAll(() => {
  pool = createPool(process.env.DATABASE_URL!, 1);
});
afterAll(() => pool.end());

test.each(twins)('$name: the SQL twin answers as the TypeScript rule for every status', async ({ rule, sql }) => {
  const { rows } = await pool.query(
    `SELECT n, (${sql('o.')}) AS answer
       FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::jsonb[], $5::jsonb[]) AS o(n, status, reclaimed_at, allocations, undelegations)
      ORDER BY n`,
    [
      cases.map((_, n) => n), cases.map((c) => c.status), cases.map((c) => (c.reclaimedAt === null ? null : new Date(c.reclaimedAt))),
      cases.map((c) => stringifyJson(c.allocations)), cases.map((c) => stringifyJson(c.undelegations)),
    ],
  );
  const sqlAnswers = rows.map((r: { answer: boolean }) => r.answer);
  const tsAnswers = cases.map(rule);
  expect(sqlAnswers).toHaveLength(cases.length);
  // Both answers occur: a rule that is always true or always false would hold the pair trivially.
  expect(new Set(tsAnswers)).toEqual(new Set([true, false]));
  const differing = cases.filter((_, n) => sqlAnswers[n] !== tsAnswers[n]);
  expect(differing).toEqual([]);
});
