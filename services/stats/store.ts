/**
 * The stats projection's SQL: its own tables (migrations/1763930000001_stats.sql), written in the caller's
 * transaction (which also moves the projection's stored offset), and the reads behind GET /v1/account/stats.
 */
import type { Pool, PoolClient } from '../platform/db/pool';
import type { ReceiverSums, StatsInput, StatsPlan } from './account-stats';
import type { Contribution, Projected } from './projection';

export const statsTables = ['stats_orders', 'stats_hourly', 'stats_receiver_daily', 'stats_undecodable'] as const;

export async function loadContributions(client: PoolClient, orderIds: string[]): Promise<Map<string, Contribution>> {
  if (orderIds.length === 0) return new Map();
  const { rows } = await client.query(
    'SELECT order_id, account_id, created_ms, receiver, energy, spent_sun, price_energy FROM stats_orders WHERE order_id = ANY($1::text[])',
    [orderIds],
  );
  return new Map(rows.map((r) => [r.order_id as string, {
    orderId: r.order_id, accountId: r.account_id, createdAt: Number(r.created_ms), receiver: r.receiver,
    energy: r.energy, spentSun: r.spent_sun, priceEnergy: r.price_energy,
  }]));
}

/** Writes a projected batch: contributions replaced, aggregates moved by their deltas. */
export async function saveProjected(client: PoolClient, p: Projected): Promise<void> {
  const c = p.contributions;
  if (c.length > 0) {
    await client.query(
      `INSERT INTO stats_orders (order_id, account_id, created_ms, receiver, energy, spent_sun, price_energy)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
       ON CONFLICT (order_id) DO UPDATE SET energy = EXCLUDED.energy, spent_sun = EXCLUDED.spent_sun, price_energy = EXCLUDED.price_energy`,
      [c.map((x) => x.orderId), c.map((x) => x.accountId), c.map((x) => String(x.createdAt)), c.map((x) => x.receiver),
        c.map((x) => String(x.energy)), c.map((x) => String(x.spentSun)), c.map((x) => String(x.priceEnergy))],
    );
  }
  const h = p.hours;
  if (h.length > 0) {
    await client.query(
      `INSERT INTO stats_hourly AS s (account_id, hour_ms, orders, energy, spent_sun, price_energy)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
       ON CONFLICT (account_id, hour_ms) DO UPDATE SET orders = s.orders + EXCLUDED.orders, energy = s.energy + EXCLUDED.energy,
         spent_sun = s.spent_sun + EXCLUDED.spent_sun, price_energy = s.price_energy + EXCLUDED.price_energy`,
      [h.map((x) => x.accountId), h.map((x) => String(x.hour)), h.map((x) => String(x.orders)), h.map((x) => String(x.energy)),
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

const HOURS_PER_DAY = 24;

/** Sums per local hour number (hours since the epoch in local time) to days and weekday x hour. */
function fromLocalHours(rows: Array<{ lh: bigint; orders: bigint; energy: bigint; spentSun: bigint; priceEnergy: bigint }>): Omit<StatsInput, 'receivers'> {
  const days = new Map<number, StatsInput['days'][number]>();
  const weekdayHours: StatsInput['weekdayHours'] = [];
  for (const r of rows) {
    const lh = Number(r.lh);
    const day = Math.floor(lh / HOURS_PER_DAY);
    const d = days.get(day) ?? { day, orders: 0n, energy: 0n, spentSun: 0n, priceEnergy: 0n };
    d.orders += r.orders;
    d.energy += r.energy;
    d.spentSun += r.spentSun;
    d.priceEnergy += r.priceEnergy;
    days.set(day, d);
    // 1970-01-01 was a Thursday: the ISO weekday index (Monday 0) of local day n is (n + 3) mod 7.
    weekdayHours.push({ weekday: (((day + 3) % 7) + 7) % 7, hour: ((lh % HOURS_PER_DAY) + HOURS_PER_DAY) % HOURS_PER_DAY, orders: r.orders });
  }
  return { days: [...days.values()], weekdayHours };
}

/**
 * Rows of one source inside [start, end) by local hour (integer epoch milliseconds plus the offset, divided
 * by an hour; times are after 1970, so integer division is floor). Hour buckets are used only when the
 * offset is whole hours, so each maps onto one local hour; per-order rows map exactly whatever the offset.
 */
async function timelineOf(client: PoolClient, source: 'hourly' | 'orders', accountId: string, span: [number, number], offsetMinutes: number): Promise<Omit<StatsInput, 'receivers'>> {
  const params = [accountId, span[0], span[1], offsetMinutes * 60_000];
  if (source === 'orders') {
    const { rows } = await client.query(
      `SELECT (created_ms + $4::bigint) / 3600000 AS lh, count(*)::bigint AS orders, sum(energy)::bigint AS energy, sum(spent_sun)::bigint AS spent_sun,
              sum(price_energy)::bigint AS price_energy
       FROM stats_orders WHERE account_id = $1 AND created_ms >= $2 AND created_ms < $3 GROUP BY 1`,
      params,
    );
    return fromLocalHours(rows.map((r) => ({ lh: BigInt(r.lh), orders: r.orders, energy: r.energy, spentSun: r.spent_sun, priceEnergy: r.price_energy })));
  }
  // Thirteen months of hour buckets are ~9,500 rows: folded in SQL to ~400 days and 168 weekday-hours.
  const { rows } = await client.query(
    `SELECT GROUPING(day)::int AS by_weekday, day, weekday, hour, sum(orders)::bigint AS orders, sum(energy)::bigint AS energy,
            sum(spent_sun)::bigint AS spent_sun, sum(price_energy)::bigint AS price_energy
     FROM (SELECT lh / 24 AS day, (lh / 24 + 3) % 7 AS weekday, lh % 24 AS hour, orders, energy, spent_sun, price_energy
           FROM (SELECT (hour_ms + $4::bigint) / 3600000 AS lh, orders, energy, spent_sun, price_energy
                 FROM stats_hourly WHERE account_id = $1 AND hour_ms >= $2 AND hour_ms < $3) h) t
     GROUP BY GROUPING SETS ((day), (weekday, hour))`,
    params,
  );
  const out: Omit<StatsInput, 'receivers'> = { days: [], weekdayHours: [] };
  for (const r of rows) {
    if (r.by_weekday === 1) out.weekdayHours.push({ weekday: Number(r.weekday), hour: Number(r.hour), orders: r.orders });
    else out.days.push({ day: Number(r.day), orders: r.orders, energy: r.energy, spentSun: r.spent_sun, priceEnergy: r.price_energy });
  }
  return out;
}

async function receiversOf(client: PoolClient, source: 'days' | 'orders', accountId: string, span: [number, number]): Promise<ReceiverSums[]> {
  const { rows } = source === 'days'
    ? await client.query(
      `SELECT receiver, sum(orders)::bigint AS orders, sum(energy)::bigint AS energy, sum(spent_sun)::bigint AS spent_sun
       FROM stats_receiver_daily WHERE account_id = $1 AND day >= $2::date AND day < $3::date GROUP BY receiver`,
      [accountId, new Date(span[0]).toISOString().slice(0, 10), new Date(span[1]).toISOString().slice(0, 10)],
    )
    : await client.query(
      `SELECT receiver, count(*)::bigint AS orders, sum(energy)::bigint AS energy, sum(spent_sun)::bigint AS spent_sun
       FROM stats_orders WHERE account_id = $1 AND created_ms >= $2 AND created_ms < $3 GROUP BY receiver`,
      [accountId, span[0], span[1]],
    );
  return rows.map((r) => ({ receiver: r.receiver, orders: r.orders, energy: r.energy, spentSun: r.spent_sun, priceEnergy: 0n }));
}

/** Everything a plan names, grouped in SQL, read in one snapshot so buckets and edges agree. */
export async function readStatsInput(pool: Pool, accountId: string, plan: StatsPlan, offsetMinutes: number): Promise<StatsInput> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const input: StatsInput = { days: [], weekdayHours: [], receivers: [] };
    const timelines = [
      ...(plan.hours ? [await timelineOf(client, 'hourly', accountId, plan.hours, offsetMinutes)] : []),
      ...(await Promise.all(plan.timelineSpans.map((s) => timelineOf(client, 'orders', accountId, s, offsetMinutes)))),
    ];
    for (const t of timelines) {
      input.days.push(...t.days);
      input.weekdayHours.push(...t.weekdayHours);
    }
    if (plan.receiverDays) input.receivers.push(...(await receiversOf(client, 'days', accountId, plan.receiverDays)));
    for (const s of plan.receiverSpans) input.receivers.push(...(await receiversOf(client, 'orders', accountId, s)));
    await client.query('COMMIT');
    return input;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
