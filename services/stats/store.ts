/**
 * The stats projection's SQL: its own tables (migrations/1763930000001_stats.sql), written in the caller's
 * transaction (which also moves the projection's stored offset), and the reads behind GET /v1/account/stats.
 */
import type { Pool, PoolClient } from '../platform/db/pool';
import type { EdgeOrder, ReceiverSums, StatsPlan, TimedSums } from './account-stats';
import type { Contribution, Projected } from './projection';

export const statsTables = ['stats_orders', 'stats_hourly', 'stats_receiver_daily', 'stats_undecodable'] as const;

export async function loadContributions(client: PoolClient, orderIds: string[]): Promise<Map<string, Contribution>> {
  if (orderIds.length === 0) return new Map();
  const { rows } = await client.query(
    'SELECT order_id, account_id, created_at, receiver, energy, spent_sun, price_energy FROM stats_orders WHERE order_id = ANY($1::text[])',
    [orderIds],
  );
  return new Map(rows.map((r) => [r.order_id as string, {
    orderId: r.order_id, accountId: r.account_id, createdAt: (r.created_at as Date).getTime(), receiver: r.receiver,
    energy: r.energy, spentSun: r.spent_sun, priceEnergy: r.price_energy,
  }]));
}

/** Writes a projected batch: contributions replaced, aggregates moved by their deltas. */
export async function saveProjected(client: PoolClient, p: Projected): Promise<void> {
  const c = p.contributions;
  if (c.length > 0) {
    await client.query(
      `INSERT INTO stats_orders (order_id, account_id, created_at, receiver, energy, spent_sun, price_energy)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
       ON CONFLICT (order_id) DO UPDATE SET energy = EXCLUDED.energy, spent_sun = EXCLUDED.spent_sun, price_energy = EXCLUDED.price_energy`,
      [c.map((x) => x.orderId), c.map((x) => x.accountId), c.map((x) => new Date(x.createdAt)), c.map((x) => x.receiver),
        c.map((x) => String(x.energy)), c.map((x) => String(x.spentSun)), c.map((x) => String(x.priceEnergy))],
    );
  }
  const h = p.hours;
  if (h.length > 0) {
    await client.query(
      `INSERT INTO stats_hourly AS s (account_id, hour, orders, energy, spent_sun, price_energy)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
       ON CONFLICT (account_id, hour) DO UPDATE SET orders = s.orders + EXCLUDED.orders, energy = s.energy + EXCLUDED.energy,
         spent_sun = s.spent_sun + EXCLUDED.spent_sun, price_energy = s.price_energy + EXCLUDED.price_energy`,
      [h.map((x) => x.accountId), h.map((x) => new Date(x.hour)), h.map((x) => String(x.orders)), h.map((x) => String(x.energy)),
        h.map((x) => String(x.spentSun)), h.map((x) => String(x.priceEnergy))],
    );
  }
  const d = p.receiverDays;
  if (d.length > 0) {
    await client.query(
      `INSERT INTO stats_receiver_daily AS s (account_id, day, receiver, orders, energy, spent_sun)
       SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
       ON CONFLICT (account_id, day, receiver) DO UPDATE SET orders = s.orders + EXCLUDED.orders, energy = s.energy + EXCLUDED.energy,
         spent_sun = s.spent_sun + EXCLUDED.spent_sun`,
      [d.map((x) => x.accountId), d.map((x) => new Date(x.day).toISOString().slice(0, 10)), d.map((x) => x.receiver),
        d.map((x) => String(x.orders)), d.map((x) => String(x.energy)), d.map((x) => String(x.spentSun))],
    );
  }
}

export async function recordUndecodableOrderEvent(client: PoolClient, topic: string, partition: number, offset: bigint, error: string): Promise<void> {
  await client.query(
    'INSERT INTO stats_undecodable (topic, partition, "offset", error) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [topic, partition, offset, error],
  );
}

/** The stored rows a plan names, read in one snapshot so buckets and edges agree. */
export async function readStatsInput(pool: Pool, accountId: string, plan: StatsPlan): Promise<{ hours: TimedSums[]; receivers: ReceiverSums[]; orders: EdgeOrder[] }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const hours = plan.hours
      ? (await client.query(
        `SELECT hour, orders, energy, spent_sun, price_energy FROM stats_hourly
         WHERE account_id = $1 AND hour >= $2 AND hour < $3`,
        [accountId, new Date(plan.hours[0]), new Date(plan.hours[1])],
      )).rows.map((r) => ({ at: (r.hour as Date).getTime(), orders: r.orders, energy: r.energy, spentSun: r.spent_sun, priceEnergy: r.price_energy }))
      : [];
    const receivers = plan.receiverDays
      ? (await client.query(
        `SELECT receiver, sum(orders)::bigint AS orders, sum(energy)::bigint AS energy, sum(spent_sun)::bigint AS spent_sun
         FROM stats_receiver_daily WHERE account_id = $1 AND day >= $2::date AND day < $3::date GROUP BY receiver`,
        [accountId, new Date(plan.receiverDays[0]).toISOString().slice(0, 10), new Date(plan.receiverDays[1]).toISOString().slice(0, 10)],
      )).rows.map((r) => ({ receiver: r.receiver, orders: r.orders, energy: r.energy, spentSun: r.spent_sun, priceEnergy: 0n }))
      : [];
    const orders: EdgeOrder[] = [];
    for (const [start, end] of plan.orderSpans) {
      const { rows } = await client.query(
        `SELECT created_at, receiver, energy, spent_sun, price_energy FROM stats_orders
         WHERE account_id = $1 AND created_at >= $2 AND created_at < $3`,
        [accountId, new Date(start), new Date(end)],
      );
      for (const r of rows) {
        orders.push({ at: (r.created_at as Date).getTime(), receiver: r.receiver, orders: 1n, energy: r.energy, spentSun: r.spent_sun, priceEnergy: r.price_energy });
      }
    }
    await client.query('COMMIT');
    return { hours, receivers, orders };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
