/**
 * The stats projection's SQL: its own tables (migrations/1763930000001_stats.sql,
 * 1764040000000_stats-rollups.sql, 1764100000000_stats-days.sql), written in the caller's
 * transaction (which also moves the projection's stored offset), and the reads behind GET /v1/account/stats.
 */
import type { Pool, PoolClient } from '../platform/db/pool';
import { localCellsOf, localDaysOf, TOP_RECEIVERS, type DayRow, type ReceiverSums, type StatsInput, type StatsPlan } from './account-stats';
import type { Contribution, OrderFacts, Projected } from './projection';
import { CACHED_RECEIVERS, wholeKey, wholePartCacheFor, type WholePart } from './read-cache';
import { DAY_MS, QUARTERS_PER_DAY } from './rollups';

export const statsTables = [
  'stats_orders', 'stats_days', 'stats_grid_monthly', 'stats_receiver_daily', 'stats_receiver_monthly', 'stats_undecodable', 'stats_account_versions',
] as const;

/** The stored contributions of the orders of `facts` (found by their primary key: account, creation time, id). */
export async function loadContributions(client: PoolClient, facts: Array<Pick<OrderFacts, 'orderId' | 'accountId' | 'createdAt'>>): Promise<Map<string, Contribution>> {
  if (facts.length === 0) return new Map();
  const { rows } = await client.query({
    name: 'stats-load-contributions',
    text: `SELECT s.order_id, s.account_id, s.created_ms, s.receiver, s.energy, s.spent_sun, s.price_energy
      FROM unnest($1::text[], $2::bigint[], $3::text[]) AS k(account_id, created_ms, order_id)
      JOIN stats_orders s ON s.account_id = k.account_id AND s.created_ms = k.created_ms AND s.order_id = k.order_id`,
    values: [facts.map((f) => f.accountId), facts.map((f) => str(f.createdAt)), facts.map((f) => f.orderId)],
  });
  return new Map(rows.map((r) => [r.order_id as string, {
    orderId: r.order_id, accountId: r.account_id, createdAt: Number(r.created_ms), receiver: r.receiver,
    energy: r.energy, spentSun: r.spent_sun, priceEnergy: r.price_energy,
  }]));
}

const str = (v: bigint | number) => String(v);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ks = Array.from({ length: QUARTERS_PER_DAY }, (_, i) => i + 1);
const QUARTER_COLUMNS = ks.map((k) => `q${k - 1}`);
const DAY_PREFIX_COLUMNS = ['o', 'e', 's'].flatMap((c) => ks.map((k) => `${c}${k}`));
const adds = (columns: string[]) => columns.map((c) => `${c} = s.${c} + EXCLUDED.${c}`).join(', ');
/**
 * A row of a table as a composite literal ("(a,b,...)"): the wide tables' rows go as one array of their
 * row type, parsed by PostgreSQL's record input, instead of one parameter array per column (288 of them:
 * subscripting those cost about half a millisecond a row). Text fields are quoted, `"` and `\` doubled.
 */
const record = (fields: Array<string | number | bigint>) =>
  `(${fields.map((f) => (typeof f === 'string' ? `"${f.replace(/["\\]/g, (c) => c + c)}"` : String(f))).join(',')})`;

/**
 * A projected batch in one statement, one data-modifying CTE per table: contributions replaced, rollups
 * moved by their deltas, and the version of every account the batch touched (the writing transaction's id:
 * services/stats/read-cache.ts). Its text never changes, so it is a named (prepared) statement: parsing and
 * planning ~400 columns cost more than running it on a small batch. Rows come as one array per column,
 * or as one array of row literals for the wide tables.
 */
const SAVE_SQL = `WITH
  c AS (INSERT INTO stats_orders AS s (account_id, created_ms, order_id, receiver, energy, spent_sun, price_energy)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
    ON CONFLICT (account_id, created_ms, order_id) DO UPDATE SET energy = EXCLUDED.energy, spent_sun = EXCLUDED.spent_sun, price_energy = EXCLUDED.price_energy),
  d AS (INSERT INTO stats_days AS s SELECT * FROM unnest($8::stats_days[])
    ON CONFLICT (account_id, day_ms) DO UPDATE SET ${adds(['price_energy', ...DAY_PREFIX_COLUMNS])}),
  g AS (INSERT INTO stats_grid_monthly AS s SELECT * FROM unnest($9::stats_grid_monthly[])
    ON CONFLICT (account_id, month_ms, weekday) DO UPDATE SET ${adds(QUARTER_COLUMNS)}),
  rd AS (INSERT INTO stats_receiver_daily AS s (account_id, day, receiver, orders, energy, spent_sun)
    SELECT * FROM unnest($10::text[], $11::date[], $12::text[], $13::bigint[], $14::bigint[], $15::bigint[])
    ON CONFLICT (account_id, day, receiver) DO UPDATE SET ${adds(['orders', 'energy', 'spent_sun'])}),
  rm AS (INSERT INTO stats_receiver_monthly AS s (account_id, month_ms, receiver, orders, energy, spent_sun)
    SELECT * FROM unnest($16::text[], $17::bigint[], $18::text[], $19::bigint[], $20::bigint[], $21::bigint[])
    ON CONFLICT (account_id, month_ms, receiver) DO UPDATE SET ${adds(['orders', 'energy', 'spent_sun'])}),
  v AS (INSERT INTO stats_account_versions AS s (account_id, version) SELECT unnest($22::text[]), pg_current_xact_id()::text::bigint
    ON CONFLICT (account_id) DO UPDATE SET version = EXCLUDED.version)
  SELECT 1`;

export async function saveProjected(client: PoolClient, p: Projected): Promise<void> {
  const { contributions: c, days: d, gridMonths: g, receiverDays: rd, receiverMonths: rm } = p;
  if (c.length + d.length + g.length + rd.length + rm.length === 0) return;
  await client.query({
    name: 'stats-save',
    text: SAVE_SQL,
    values: [
      c.map((x) => x.accountId), c.map((x) => str(x.createdAt)), c.map((x) => x.orderId), c.map((x) => x.receiver), c.map((x) => str(x.energy)), c.map((x) => str(x.spentSun)), c.map((x) => str(x.priceEnergy)),
      d.map((x) => record([x.accountId, x.day, x.priceEnergy, ...x.orders, ...x.energy, ...x.spentSun])),
      g.map((x) => record([x.accountId, x.month, x.weekday, ...x.quarters])),
      rd.map((x) => x.accountId), rd.map((x) => isoDay(x.at)), rd.map((x) => x.receiver), rd.map((x) => str(x.orders)), rd.map((x) => str(x.energy)), rd.map((x) => str(x.spentSun)),
      rm.map((x) => x.accountId), rm.map((x) => str(x.at)), rm.map((x) => x.receiver), rm.map((x) => str(x.orders)), rm.map((x) => str(x.energy)), rm.map((x) => str(x.spentSun)),
      [...new Set(c.map((x) => x.accountId))],
    ],
  });
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
const RECEIVER_SUMS = 'sum(orders)::bigint AS orders, sum(energy)::bigint AS energy, sum(spent_sun)::bigint AS spent_sun';
const RANKED = 'ORDER BY sum(orders) DESC, sum(energy) DESC, sum(spent_sun) DESC, receiver COLLATE "C"';

/** The columns every row of the reads has, as `kind, n, receiver, sums, p_sums, quarters`. */
const ROW = (kind: string, n: string, receiver: string, sums: string, parts = '0, 0, 0, 0', quarters = 'NULL') =>
  `SELECT '${kind}', ${n}, ${receiver}, ${sums}, ${parts}, ${quarters}`;
const HEADER = `SELECT 'v' AS kind, version AS n, NULL::text AS receiver, 0::bigint AS orders, 0::bigint AS energy, 0::bigint AS spent_sun, 0::bigint AS price_energy,
    0::bigint AS p_orders, 0::bigint AS p_energy, 0::bigint AS p_spent_sun, 0::bigint AS p_price_energy, NULL::int[] AS quarters
    FROM stats_account_versions WHERE account_id = $1`;
/** The per-order rows of the range's partial days: 'h' per local hour, 'e' per receiver. */
const edgeCtes = (offset: number, timeline: number, receivers: number) => `h AS (
    SELECT (created_ms + $${offset}::bigint) / ${HOUR_MS} AS lh, count(*)::bigint AS orders, ${SUMS.slice(1).map((c) => `sum(${c})::bigint AS ${c}`).join(', ')}
    FROM stats_orders WHERE account_id = $1 AND ${inSpans('created_ms', timeline, 'bigint')}
    GROUP BY 1
  ), e AS (
    SELECT receiver, count(*)::bigint AS orders, sum(energy)::bigint AS energy, sum(spent_sun)::bigint AS spent_sun
    FROM stats_orders WHERE account_id = $1 AND ${inSpans('created_ms', receivers, 'bigint')} GROUP BY receiver
  )`;
const EDGE_ROWS = `UNION ALL ${ROW('h', 'lh', 'NULL', SUMS.join(', '))} FROM h
  UNION ALL ${ROW('e', '0', 'receiver', 'orders, energy, spent_sun, 0')} FROM e`;

/**
 * The read when a whole part is held (services/stats/read-cache.ts): the account's version and the partial
 * days, one small statement. If the version moved, readSql follows.
 */
const EDGES_SQL = `WITH ${edgeCtes(2, 3, 7)}
  ${HEADER}
  ${EDGE_ROWS}`;

/**
 * Everything GET /v1/account/stats reads without a held whole part, as one statement (one snapshot, one
 * round trip). Rows by kind:
 * - 'v': the account's stored version (none before its first projected event), kept with the whole part;
 * - 'd': a UTC day of the plan's whole days: the day's sums and those of its head, the quarters before
 *   `head` (p_*; the day again when there is no split);
 * - 'g': orders per UTC weekday and quarter-hour over the grid's whole months and days (a day's quarter k
 *   is o<k+1> - o<k>);
 * - 'w': receivers over the whole months and days, ranked, at most CACHED_RECEIVERS + 1;
 * - 'h' and 'e': the partial days (edgeCtes): per local hour ((created_ms + offset) / 1 h in integer
 *   arithmetic; times are after 1970, so division is floor) and per receiver;
 * - 'r' (the `ranked` variant, for an account with more than CACHED_RECEIVERS receivers; a one-time filter
 *   skips it if they turn out fewer): the top receivers over whole months, whole days and per-order rows, in
 *   accountStats' order. Without it the statement plans faster: it is planned on every execution
 *   (PostgreSQL keeps choosing custom plans for it).
 */
function readSql(head: number, ranked: boolean): string {
  if (!Number.isInteger(head) || head < 1 || head > QUARTERS_PER_DAY) throw new RangeError(`head quarter ${head}`);
  const dayQuarters = ks.map((k) => (k === 1 ? 'o1' : `o${k} - o${k - 1}`));
  const many = `(SELECT count(*) FROM w) > ${CACHED_RECEIVERS}`;
  const wholeReceivers = (gate: string) => `SELECT receiver, orders, energy, spent_sun FROM stats_receiver_monthly WHERE account_id = $1 AND month_ms >= $15 AND month_ms < $16${gate}
          UNION ALL
          SELECT receiver, orders, energy, spent_sun FROM stats_receiver_daily WHERE account_id = $1 AND ${inSpans('day', 17, 'date')}${gate}`;
  return `
  WITH d AS (
    SELECT day_ms, o96::bigint AS orders, e96 AS energy, s96 AS spent_sun, price_energy, o${head}::bigint AS p_orders, e${head} AS p_energy, s${head} AS p_spent_sun, 0::bigint AS p_price_energy
    FROM stats_days WHERE account_id = $1 AND day_ms >= $2 AND day_ms < $3
  ), ${edgeCtes(4, 5, 21)}, g AS (
    SELECT weekday, ARRAY[${QUARTER_COLUMNS.map((q) => `sum(${q})::int`).join(', ')}] AS quarters
    FROM (SELECT weekday, ${QUARTER_COLUMNS.join(', ')} FROM stats_grid_monthly WHERE account_id = $1 AND month_ms >= $9 AND month_ms < $10
          UNION ALL
          SELECT ((day_ms / ${DAY_MS} + 3) % 7)::smallint, ${dayQuarters.join(', ')} FROM stats_days WHERE account_id = $1 AND ${inSpans('day_ms', 11, 'bigint')}) t
    GROUP BY weekday
  ), w AS (
    SELECT receiver, ${RECEIVER_SUMS} FROM (${wholeReceivers('')}) t
    GROUP BY receiver ${RANKED} LIMIT ${CACHED_RECEIVERS + 1}
  )${ranked ? `, r AS (
    SELECT receiver, ${RECEIVER_SUMS}
    FROM (${wholeReceivers(` AND ${many}`)}
          UNION ALL
          SELECT receiver, 1, energy, spent_sun FROM stats_orders WHERE account_id = $1 AND ${inSpans('created_ms', 21, 'bigint')} AND ${many}) t
    GROUP BY receiver
    HAVING sum(orders) > 0
    ${RANKED}
    LIMIT ${TOP_RECEIVERS}
  )` : ''}
  ${HEADER}
  UNION ALL ${ROW('d', 'day_ms', 'NULL', SUMS.join(', '), SUMS.map((c) => `p_${c}`).join(', '))} FROM d
  UNION ALL ${ROW('g', 'weekday', 'NULL', '0, 0, 0, 0', '0, 0, 0, 0', 'quarters')} FROM g
  UNION ALL ${ROW('w', '0', 'receiver', 'orders, energy, spent_sun, 0')} FROM w
  ${EDGE_ROWS}${ranked ? `
  UNION ALL ${ROW('r', '0', 'receiver', 'orders, energy, spent_sun, 0')} FROM r` : ''}`;
}
/** One text per head quarter (at most 96) and variant, built once. */
const readSqls = new Map<string, string>();

const sums = (r: Record<string, bigint>, prefix = '') => ({ orders: r[`${prefix}orders`], energy: r[`${prefix}energy`], spentSun: r[`${prefix}spent_sun`], priceEnergy: r[`${prefix}price_energy`] });
const receiverSums = (r: Record<string, any>): ReceiverSums => ({ receiver: r.receiver, orders: r.orders, energy: r.energy, spentSun: r.spent_sun, priceEnergy: 0n });
/** The rows of one kind ('v', 'd', 'g', 'w', 'h', 'e', 'r': see readSql). */
const ofKind = (rows: Array<Record<string, any>>, kind: string) => rows.filter((r) => r.kind === kind);
const versionOf = (rows: Array<Record<string, any>>) => (rows.find((r) => r.kind === 'v')?.n as bigint | undefined) ?? null;

/**
 * Everything a plan names, folded to local days, weekday x hour and receivers. The whole part (rollups)
 * comes from the pool's WholePartCache when the account's projection has not moved since it was read
 * (one small statement: the version and the partial days); otherwise one statement reads it all and the
 * whole part is kept.
 */
export async function readStatsInput(pool: Pool, accountId: string, plan: StatsPlan, offsetMinutes: number): Promise<StatsInput> {
  const days = plan.days ?? [0, 0];
  const head = plan.split?.quarter ?? QUARTERS_PER_DAY;
  const gridMonths = plan.gridMonths ?? [0, 0];
  const receiverMonths = plan.receiverMonths ?? [0, 0];
  const cache = wholePartCacheFor(pool);
  const key = wholeKey(accountId, plan, offsetMinutes);
  const held = cache.get(key);
  // Named (prepared: parsed once per connection) when every part is an index range over at most a few
  // thousand rows whatever the bounds: whole days at a quarter offset. Otherwise (no whole day, or an offset
  // that is not a quarter, which reads every order of the range) unnamed, planned for its bounds.
  const named = plan.days !== null;
  const edgeValues = [offsetMinutes * 60_000, ...twoSpans(plan.timelineSpans)];
  let rows: Array<Record<string, any>> | undefined;
  // A held part without its receivers (too many to keep) needs the ranked 'r' of the full statement.
  if (held && held.receivers !== null) {
    const edges = await pool.query({ name: named ? 'stats-read-edges' : undefined, text: EDGES_SQL, values: [accountId, ...edgeValues, ...twoSpans(plan.receiverSpans)] });
    if (versionOf(edges.rows) === held.version) rows = edges.rows;
  }
  cache.record(rows !== undefined);
  let whole: Omit<WholePart, 'version'>;
  if (held && rows) {
    whole = held;
  } else {
    // The variant with 'r' when the account is known to have too many receivers to keep, or turns out to.
    const full = async (ranked: boolean) => {
      const variant = `${head}${ranked ? '-ranked' : ''}`;
      const text = readSqls.get(variant) ?? readSql(head, ranked);
      readSqls.set(variant, text);
      return (await pool.query({
        name: named ? `stats-read-${variant}` : undefined,
        text,
        values: [
          accountId, days[0], days[1], ...edgeValues,
          gridMonths[0], gridMonths[1], ...twoSpans(plan.gridDays), receiverMonths[0], receiverMonths[1], ...twoSpans(plan.receiverDays, isoDay),
          ...twoSpans(plan.receiverSpans),
        ],
      })).rows as Array<Record<string, any>>;
    };
    rows = await full(held?.receivers === null);
    if (held?.receivers !== null && ofKind(rows, 'w').length > CACHED_RECEIVERS) rows = await full(true);
    const dayRows: DayRow[] = ofKind(rows, 'd').map((r) => ({ day: Number(r.n), total: sums(r), part: sums(r, 'p_') }));
    const ranked = ofKind(rows, 'w');
    whole = {
      days: localDaysOf(dayRows, plan.split, offsetMinutes),
      weekdayHours: localCellsOf(ofKind(rows, 'g').map((r) => ({ weekday: Number(r.n), quarters: r.quarters as number[] })), offsetMinutes),
      receivers: ranked.length > CACHED_RECEIVERS ? null : ranked.map(receiverSums),
    };
    const version = versionOf(rows);
    if (version !== null) cache.set(key, { version, ...whole });
  }
  const read = rows as Array<Record<string, any>>;
  const edges = fromLocalHours(ofKind(read, 'h').map((r) => ({ lh: r.n, ...sums(r) })));
  return {
    days: [...whole.days, ...edges.days],
    weekdayHours: [...whole.weekdayHours, ...edges.weekdayHours],
    // accountStats adds a receiver's parts together and ranks them; 'r' is already the ranked whole.
    receivers: whole.receivers === null ? ofKind(read, 'r').map(receiverSums) : [...whole.receivers, ...ofKind(read, 'e').map(receiverSums)],
  };
}
