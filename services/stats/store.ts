/**
 * The stats projection's SQL: its own tables (migrations/1763930000001_stats.sql,
 * 1764040000000_stats-rollups.sql), written in the caller's
 * transaction (which also moves the projection's stored offset), and the reads behind GET /v1/account/stats.
 */
import type { Pool, PoolClient } from '../platform/db/pool';
import { localCellsOf, localDaysOf, TOP_RECEIVERS, type DayRow, type StatsInput, type StatsPlan } from './account-stats';
import type { Contribution, Projected } from './projection';
import { DAY_MS, QUARTERS_PER_DAY } from './rollups';

export const statsTables = [
  'stats_orders', 'stats_day_blocks', 'stats_grid_daily', 'stats_grid_monthly', 'stats_receiver_daily', 'stats_receiver_monthly', 'stats_undecodable',
] as const;

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

const QUARTER_COLUMNS = Array.from({ length: QUARTERS_PER_DAY }, (_, i) => `q${i}`);
const quarterArrays = (first: number) => QUARTER_COLUMNS.map((_, i) => `$${first + i}::int[]`);
const quarterAdds = QUARTER_COLUMNS.map((q) => `${q} = s.${q} + EXCLUDED.${q}`).join(', ');
/** The 96 quarter columns of grid rows as 96 parameter arrays (one value per row). */
const quarterValues = (rows: Array<{ quarters: number[] }>) => QUARTER_COLUMNS.map((_, i) => rows.map((r) => r.quarters[i]));
const sumAdds = (columns: string[]) => columns.map((c) => `${c} = s.${c} + EXCLUDED.${c}`).join(', ');

const str = (v: bigint | number) => String(v);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One upsert of rows given as parallel arrays: `casts` numbers the unnest arguments from `first`, `values` holds one array per column. */
interface Upsert {
  table: string;
  columns: string[];
  casts: (first: number) => string[];
  values: unknown[][];
  conflict: string;
  set: string;
}

function upsertsOf(p: Projected): Upsert[] {
  const c = p.contributions;
  const b = p.dayBlocks;
  const gd = p.gridDays;
  const gm = p.gridMonths;
  const rd = p.receiverDays;
  const rm = p.receiverMonths;
  const arrays = (types: string[]) => (first: number) => types.map((t, i) => `$${first + i}::${t}[]`);
  const receiverSums = ['orders', 'energy', 'spent_sun'];
  const upserts: Upsert[] = [
    {
      table: 'stats_orders', columns: ['order_id', 'account_id', 'created_ms', 'receiver', 'energy', 'spent_sun', 'price_energy'],
      casts: arrays(['text', 'text', 'bigint', 'text', 'bigint', 'bigint', 'bigint']),
      values: [c.map((x) => x.orderId), c.map((x) => x.accountId), c.map((x) => str(x.createdAt)), c.map((x) => x.receiver), c.map((x) => str(x.energy)), c.map((x) => str(x.spentSun)), c.map((x) => str(x.priceEnergy))],
      conflict: 'order_id', set: 'energy = EXCLUDED.energy, spent_sun = EXCLUDED.spent_sun, price_energy = EXCLUDED.price_energy',
    },
    {
      table: 'stats_day_blocks', columns: ['account_id', 'size', 'block', 'day_ms', 'orders', 'energy', 'spent_sun', 'price_energy'],
      casts: arrays(['text', 'smallint', 'smallint', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint']),
      values: [b.map((x) => x.accountId), b.map((x) => x.size), b.map((x) => x.block), b.map((x) => str(x.day)), b.map((x) => str(x.orders)), b.map((x) => str(x.energy)), b.map((x) => str(x.spentSun)), b.map((x) => str(x.priceEnergy))],
      conflict: 'account_id, size, block, day_ms', set: sumAdds(['orders', 'energy', 'spent_sun', 'price_energy']),
    },
    {
      table: 'stats_grid_daily', columns: ['account_id', 'day_ms', ...QUARTER_COLUMNS],
      casts: (first) => [...arrays(['text', 'bigint'])(first), ...quarterArrays(first + 2)],
      values: [gd.map((x) => x.accountId), gd.map((x) => str(x.day)), ...quarterValues(gd)],
      conflict: 'account_id, day_ms', set: quarterAdds,
    },
    {
      table: 'stats_grid_monthly', columns: ['account_id', 'month_ms', 'weekday', ...QUARTER_COLUMNS],
      casts: (first) => [...arrays(['text', 'bigint', 'smallint'])(first), ...quarterArrays(first + 3)],
      values: [gm.map((x) => x.accountId), gm.map((x) => str(x.month)), gm.map((x) => x.weekday), ...quarterValues(gm)],
      conflict: 'account_id, month_ms, weekday', set: quarterAdds,
    },
    {
      table: 'stats_receiver_daily', columns: ['account_id', 'day', 'receiver', ...receiverSums], casts: arrays(['text', 'date', 'text', 'bigint', 'bigint', 'bigint']),
      values: [rd.map((x) => x.accountId), rd.map((x) => isoDay(x.at)), rd.map((x) => x.receiver), rd.map((x) => str(x.orders)), rd.map((x) => str(x.energy)), rd.map((x) => str(x.spentSun))],
      conflict: 'account_id, day, receiver', set: sumAdds(receiverSums),
    },
    {
      table: 'stats_receiver_monthly', columns: ['account_id', 'month_ms', 'receiver', ...receiverSums], casts: arrays(['text', 'bigint', 'text', 'bigint', 'bigint', 'bigint']),
      values: [rm.map((x) => x.accountId), rm.map((x) => str(x.at)), rm.map((x) => x.receiver), rm.map((x) => str(x.orders)), rm.map((x) => str(x.energy)), rm.map((x) => str(x.spentSun))],
      conflict: 'account_id, month_ms, receiver', set: sumAdds(receiverSums),
    },
  ];
  return upserts.filter((u) => u.values[0].length > 0);
}

/**
 * Writes a projected batch in one statement (one data-modifying CTE per table): contributions replaced,
 * rollups moved by their deltas.
 */
export async function saveProjected(client: PoolClient, p: Projected): Promise<void> {
  const upserts = upsertsOf(p);
  if (upserts.length === 0) return;
  const params: unknown[] = [];
  const ctes = upserts.map((u, i) => {
    const casts = u.casts(params.length + 1);
    params.push(...u.values);
    return `w${i} AS (INSERT INTO ${u.table} AS s (${u.columns.join(', ')}) SELECT * FROM unnest(${casts.join(', ')})
      ON CONFLICT (${u.conflict}) DO UPDATE SET ${u.set})`;
  });
  await client.query(`WITH ${ctes.join(',\n')} SELECT 1`, params);
}

export async function recordUndecodableOrderEvent(client: PoolClient, topic: string, partition: number, offset: bigint, error: string): Promise<void> {
  await client.query(
    'INSERT INTO stats_undecodable (topic, partition, "offset", error) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [topic, partition, offset, error],
  );
}

const HOURS_PER_DAY = 24;
const HOUR_MS = 3_600_000;

type LocalHourRow = { lh: bigint; orders: bigint; energy: bigint; spentSun: bigint; priceEnergy: bigint };

/** Sums per local hour number (hours since the epoch in local time) to days and weekday x hour. */
function fromLocalHours(rows: LocalHourRow[]): Omit<StatsInput, 'receivers'> {
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

/** Up to two spans as four bounds ([0, 0) for a missing one), so each side is an index range. */
function twoSpans(spans: Array<[number, number]>, format: (ms: number) => string = String): string[] {
  if (spans.length > 2) throw new Error(`at most two spans, got ${spans.length}`);
  const padded = [...spans, [0, 0], [0, 0]].slice(0, 2) as Array<[number, number]>;
  return padded.flatMap(([a, b]) => [format(a), format(b)]);
}
const inSpans = (column: string, first: number, cast: string) =>
  `((${column} >= $${first}::${cast} AND ${column} < $${first + 1}::${cast}) OR (${column} >= $${first + 2}::${cast} AND ${column} < $${first + 3}::${cast}))`;

const SUMS = ['orders', 'energy', 'spent_sun', 'price_energy'] as const;

/**
 * Everything GET /v1/account/stats reads, as one statement (one snapshot, one round trip). Rows by kind:
 * - 'd': a UTC day of the plan's whole days: the day's sums and the sums of the split side's blocks (p_*);
 * - 'h': per-order rows of the timeline spans summed per local hour ((created_ms + offset) / 1 h in integer
 *   arithmetic; times are after 1970, so division is floor);
 * - 'g': orders per UTC weekday and quarter-hour over the grid's whole months and days;
 * - 'r': the top receivers over whole months, whole days and per-order rows, in accountStats' order.
 */
const READ_SQL = `
  WITH d AS (
    SELECT day_ms, ${SUMS.map((c) => `sum(${c}) FILTER (WHERE size = 96)::bigint AS ${c}, coalesce(sum(${c}) FILTER (WHERE size < 96), 0)::bigint AS p_${c}`).join(', ')}
    FROM stats_day_blocks b JOIN unnest($4::smallint[], $5::smallint[]) AS v(v_size, v_block) ON b.size = v.v_size AND b.block = v.v_block
    WHERE b.account_id = $1 AND b.day_ms >= $2 AND b.day_ms < $3
    GROUP BY day_ms
  ), h AS (
    SELECT (created_ms + $6::bigint) / ${HOUR_MS} AS lh, count(*)::bigint AS orders, ${SUMS.slice(1).map((c) => `sum(${c})::bigint AS ${c}`).join(', ')}
    FROM stats_orders WHERE account_id = $1 AND ${inSpans('created_ms', 7, 'bigint')}
    GROUP BY 1
  ), g AS (
    SELECT weekday, ARRAY[${QUARTER_COLUMNS.map((q) => `sum(${q})::int`).join(', ')}] AS quarters
    FROM (SELECT weekday, ${QUARTER_COLUMNS.join(', ')} FROM stats_grid_monthly WHERE account_id = $1 AND month_ms >= $11 AND month_ms < $12
          UNION ALL
          SELECT ((day_ms / ${DAY_MS} + 3) % 7)::smallint, ${QUARTER_COLUMNS.join(', ')} FROM stats_grid_daily WHERE account_id = $1 AND ${inSpans('day_ms', 13, 'bigint')}) t
    GROUP BY weekday
  ), r AS (
    SELECT receiver, sum(orders)::bigint AS orders, sum(energy)::bigint AS energy, sum(spent_sun)::bigint AS spent_sun
    FROM (SELECT receiver, orders, energy, spent_sun FROM stats_receiver_monthly WHERE account_id = $1 AND month_ms >= $17 AND month_ms < $18
          UNION ALL
          SELECT receiver, orders, energy, spent_sun FROM stats_receiver_daily WHERE account_id = $1 AND ${inSpans('day', 19, 'date')}
          UNION ALL
          SELECT receiver, 1, energy, spent_sun FROM stats_orders WHERE account_id = $1 AND ${inSpans('created_ms', 23, 'bigint')}) t
    GROUP BY receiver
    HAVING sum(orders) > 0
    ORDER BY sum(orders) DESC, sum(energy) DESC, sum(spent_sun) DESC, receiver COLLATE "C"
    LIMIT ${TOP_RECEIVERS}
  )
  SELECT 'd' AS kind, day_ms AS n, NULL::text AS receiver, ${SUMS.join(', ')}, ${SUMS.map((c) => `p_${c}`).join(', ')}, NULL::int[] AS quarters FROM d
  UNION ALL SELECT 'h', lh, NULL, ${SUMS.join(', ')}, 0, 0, 0, 0, NULL FROM h
  UNION ALL SELECT 'g', weekday, NULL, 0, 0, 0, 0, 0, 0, 0, 0, quarters FROM g
  UNION ALL SELECT 'r', 0, receiver, orders, energy, spent_sun, 0, 0, 0, 0, 0, NULL FROM r`;

const sums = (r: Record<string, bigint>, prefix = '') => ({ orders: r[`${prefix}orders`], energy: r[`${prefix}energy`], spentSun: r[`${prefix}spent_sun`], priceEnergy: r[`${prefix}price_energy`] });

/** Everything a plan names, in one statement, folded to local days, weekday x hour and receivers. */
export async function readStatsInput(pool: Pool, accountId: string, plan: StatsPlan, offsetMinutes: number): Promise<StatsInput> {
  const days = plan.days ?? [0, 0];
  const blocks = [{ size: 96, block: 0 }, ...(plan.split?.blocks ?? [])];
  const gridMonths = plan.gridMonths ?? [0, 0];
  const receiverMonths = plan.receiverMonths ?? [0, 0];
  // Planned for these bounds every time: a generic plan cannot tell an empty edge span from a year.
  const { rows } = await pool.query({
    text: READ_SQL,
    values: [
      accountId, days[0], days[1], blocks.map((b) => b.size), blocks.map((b) => b.block), offsetMinutes * 60_000, ...twoSpans(plan.timelineSpans),
      gridMonths[0], gridMonths[1], ...twoSpans(plan.gridDays), receiverMonths[0], receiverMonths[1], ...twoSpans(plan.receiverDays, isoDay),
      ...twoSpans(plan.receiverSpans),
    ],
  });
  const of = (kind: string) => rows.filter((r) => r.kind === kind);
  const dayRows: DayRow[] = of('d').map((r) => ({ day: Number(r.n), total: sums(r), part: sums(r, 'p_') }));
  const edges = fromLocalHours(of('h').map((r) => ({ lh: r.n, ...sums(r) })));
  return {
    days: [...localDaysOf(dayRows, plan.split, offsetMinutes), ...edges.days],
    weekdayHours: [...localCellsOf(of('g').map((r) => ({ weekday: Number(r.n), quarters: r.quarters as number[] })), offsetMinutes), ...edges.weekdayHours],
    receivers: of('r').map((r) => ({ receiver: r.receiver, orders: r.orders, energy: r.energy, spentSun: r.spent_sun, priceEnergy: 0n })),
  };
}
