/**
 * The dispatcher's SQL. Intake writes deliveries in the transaction that moves its stored offset; the
 * sender claims due deliveries in short transactions (FOR UPDATE SKIP LOCKED) and never holds one across
 * an HTTP call: a claim is a token and a lease, and an outcome is written only by the claim's holder.
 */
import { derivedId } from '../domain/ids';
import { insertRows } from '../platform/db/bulk';
import type { Pool, PoolClient } from '../platform/db/pool';
import { envelopeBytes, streamKeyOf, type EnvelopeSource } from '../webhooks/signing';
import { failoverTarget, initialTarget, type EndpointRoute } from '../webhooks/routing';
import { maxAttemptsFor, orderIdOf, type NextStep } from '../webhooks/schedule';
import { tiersOfOrders } from '../orders/reads';

export interface IncomingEvent extends EnvelopeSource {
  /** Position in the account's partition: events of one stream are delivered in this order. */
  seq: bigint;
}

export async function endpointRoutes(db: Pool | PoolClient, accountIds: string[]): Promise<Map<string, EndpointRoute[]>> {
  const { rows } = await db.query('SELECT id, account_id, role, events FROM webhook_endpoints WHERE account_id = ANY($1::text[])', [accountIds]);
  const out = new Map<string, EndpointRoute[]>();
  for (const r of rows) {
    const list = out.get(r.account_id) ?? [];
    list.push({ id: r.id, role: r.role, events: r.events });
    out.set(r.account_id, list);
  }
  return out;
}

/** Tiers of the orders named by events that carry no tier of their own (order.expired, .reclaimed, .refunded). */
async function orderTiers(client: PoolClient, events: IncomingEvent[]): Promise<Map<string, string | null>> {
  const ids = [...new Set(events.filter((e) => !(e.data as { tier?: unknown }).tier).map((e) => orderIdOf(e.data)).filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  return tiersOfOrders(client, ids);
}

/** Inserts one delivery per event that some endpoint of its account takes; a repeated event is ignored. */
export async function insertDeliveries(client: PoolClient, events: IncomingEvent[], now: number): Promise<number> {
  if (events.length === 0) return 0;
  const routes = await endpointRoutes(client, [...new Set(events.map((e) => e.accountId))]);
  const tiers = await orderTiers(client, events);
  const rows: unknown[][] = [];
  for (const event of events) {
    const target = initialTarget(routes.get(event.accountId) ?? [], event.type);
    if (!target) continue;
    rows.push([
      derivedId('delivery', event.eventId), event.eventId, event.type, event.accountId, target.id, target.id,
      streamKeyOf(event.accountId, event.data), event.seq, envelopeBytes(event, false), maxAttemptsFor(event.data, tiers.get(orderIdOf(event.data) ?? '') ?? null),
      'pending', new Date(now), new Date(event.createdAt), new Date(now), new Date(now),
    ]);
  }
  return insertRows(
    client, 'webhook_deliveries',
    ['id', 'event_id', 'event_type', 'account_id', 'endpoint_id', 'origin_endpoint_id', 'stream_key', 'seq', 'body', 'max_attempts',
      'state', 'next_attempt_at', 'event_created_at', 'created_at', 'updated_at'],
    rows, 'ON CONFLICT (event_id) DO NOTHING',
  );
}

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  accountId: string;
  endpointId: string;
  url: string;
  secretSealed: string;
  body: Buffer;
  attempt: number;
  targetAttempt: number;
  maxAttempts: number;
  failedOver: boolean;
  claimToken: string;
}

/**
 * A delivery an earlier event of its stream holds back (the delivery order rule). `written` names the
 * deliveries whose outcomes the same statement writes: they hold nothing back any more (delivered,
 * failed after an attempt, dead), though the statement's snapshot still shows them in flight.
 */
const heldBack = (written: string) => `EXISTS (
  SELECT 1 FROM webhook_deliveries p JOIN webhook_endpoints pe ON pe.id = p.endpoint_id
  WHERE p.account_id = d.account_id AND p.stream_key = d.stream_key AND p.seq < d.seq
    AND (p.state = 'delivering' OR (p.state = 'pending' AND p.attempt = 0 AND pe.is_active))
    AND p.id NOT IN (SELECT id FROM ${written}))`;

/**
 * Attempts in flight to an endpoint (claimed, lease live), across every sender. A claim takes at most
 * `perEndpoint` of them per endpoint (as of its snapshot; two senders may each take that many): an endpoint
 * that answers slowly fills its own share of the slots,
 * and the others' deliveries are claimed past its due rows (docs/security.md, "Webhook fairness").
 */
const inFlightOf = (endpoint: string) => `(SELECT count(*) FROM webhook_deliveries x
  WHERE x.endpoint_id = ${endpoint} AND x.state = 'delivering' AND x.lease_until >= now())`;

export async function failoverCandidate(pool: Pool, delivery: ClaimedDelivery): Promise<string | null> {
  const routes = (await endpointRoutes(pool, [delivery.accountId])).get(delivery.accountId) ?? [];
  return failoverTarget(routes, delivery.endpointId, delivery.eventType)?.id ?? null;
}

export interface AttemptOutcomeRow {
  delivery: ClaimedDelivery;
  step: NextStep;
  answer: { status: number | null; error: string | null };
  now: number;
}

export interface CycleResult {
  /** Ids of the outcomes written (those whose claim this sender still held). */
  written: Set<string>;
  claimed: ClaimedDelivery[];
}

/**
 * One round trip of the sender: writes the outcomes of finished attempts, then claims up to `limit`
 * deliveries that are due (or whose claim lapsed), on active endpoints, marking them delivering with one
 * attempt more.
 *
 * Outcomes: each delivery only if this sender still holds its claim; each endpoint's latest attempt (its
 * rows locked in id order, so two senders never deadlock; FOR NO KEY UPDATE, the lock the update takes
 * anyway, so the KEY SHARE locks that intake's inserts take on the same rows through the foreign key,
 * in any order, never wait for a sender or make it wait: FOR UPDATE did, and deadlocked with intake).
 *
 * Claims: an earlier event of the same stream holds a delivery back only while it waits for its first
 * attempt on an active endpoint or has an attempt in flight (the delivery order rule in
 * services/webhooks/schedule.ts): a failing earlier event never stalls the later ones behind it. An
 * outcome written by this statement releases the next event of its stream in the same statement. Lapsed
 * claims and due deliveries are two index walks (lease_until, next_attempt_at), each probing the stream
 * index for an earlier event until it has `limit` rows: the cost follows what is claimed and what is held
 * back ahead of it, where a sort by (next_attempt_at, seq) hashed every open delivery on each claim.
 */
/**
 * The cycle statement is named: each connection parses it once and plans it once. Planning it cost about
 * as much as running it (figures in bench/README.md, "Figures formerly quoted in code comments"), and with small
 * claims PostgreSQL would keep planning it afresh (a LIMIT given as a parameter looks dear to the generic
 * plan), so the connections that run it use generic plans for named statements (this is the only named
 * statement of the service). The generic plan walks the same indexes as the custom ones (due and claimed
 * index walks, the stream index probed per candidate), checked with EXPLAIN ANALYZE over 2,000 and 30,000
 * open deliveries.
 */
const CYCLE_STATEMENT = 'webhook-send-cycle';
const genericPlans = new WeakSet<PoolClient>();

async function useGenericPlans(client: PoolClient): Promise<void> {
  if (genericPlans.has(client)) return;
  await client.query('SET plan_cache_mode = force_generic_plan');
  genericPlans.add(client);
}

export async function sendCycle(
  pool: Pool, outcomes: AttemptOutcomeRow[], opts: { now: number; limit: number; token: string; leaseMs: number; perEndpoint: number },
): Promise<CycleResult> {
  const col = <T>(f: (o: AttemptOutcomeRow) => T) => outcomes.map(f);
  const latest = new Map<string, AttemptOutcomeRow>();
  for (const o of outcomes) if ((latest.get(o.delivery.endpointId)?.now ?? -Infinity) <= o.now) latest.set(o.delivery.endpointId, o);
  const endpoints = [...latest.keys()].sort();
  const client = await pool.connect();
  let rows: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    await useGenericPlans(client);
    ({ rows } = await client.query({
      name: CYCLE_STATEMENT,
      text: `WITH written AS (
         UPDATE webhook_deliveries d SET
            state = o.state, response_status = o.status, error = o.error,
            next_attempt_at = o.next_at, delivered_at = o.delivered_at,
            endpoint_id = coalesce(o.failover, d.endpoint_id), failed_over = d.failed_over OR o.failover IS NOT NULL,
            target_attempt = CASE WHEN o.failover IS NULL THEN d.target_attempt ELSE 0 END,
            claim_token = NULL, lease_until = NULL, updated_at = o.at
           FROM unnest($5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::timestamptz[], $11::timestamptz[], $12::text[], $13::timestamptz[])
                AS o(id, token, state, status, error, next_at, delivered_at, failover, at)
          WHERE d.id = o.id AND d.claim_token = o.token
          RETURNING d.id),
       locked AS (SELECT id FROM webhook_endpoints WHERE id = ANY($14::text[]) ORDER BY id FOR NO KEY UPDATE),
       endpoints AS (
         UPDATE webhook_endpoints e SET last_delivery_at = o.at, last_delivery_status = o.status
           FROM unnest($14::text[], $15::timestamptz[], $16::int[]) AS o(id, at, status), locked
          WHERE e.id = o.id AND locked.id = o.id),
       lapsed AS (
         SELECT d.id, d.endpoint_id, 0 AS src, d.lease_until AS k FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.state = 'delivering' AND d.lease_until < now() AND d.id <> ALL($5::text[]) AND e.is_active AND NOT ${heldBack('written')}
           AND ${inFlightOf('d.endpoint_id')} < $17
         ORDER BY d.lease_until
         LIMIT $2
         FOR UPDATE OF d SKIP LOCKED),
       due AS (
         SELECT d.id, d.endpoint_id, 1 AS src, d.next_attempt_at AS k FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.state IN ('pending', 'failed') AND d.next_attempt_at <= $1 AND e.is_active AND NOT ${heldBack('written')}
           AND ${inFlightOf('d.endpoint_id')} < $17
         ORDER BY d.next_attempt_at
         LIMIT $2
         FOR UPDATE OF d SKIP LOCKED),
       candidates AS (SELECT id, endpoint_id, src, k, row_number() OVER (PARTITION BY endpoint_id ORDER BY src, k) AS rn FROM (SELECT * FROM lapsed UNION ALL SELECT * FROM due) c),
       picked AS (
         SELECT c.id FROM candidates c WHERE c.rn + ${inFlightOf('c.endpoint_id')} <= $17
         ORDER BY c.src, c.k
         LIMIT $2),
       claimed AS (
         UPDATE webhook_deliveries d
            SET state = 'delivering', attempt = d.attempt + 1, target_attempt = d.target_attempt + 1,
                claim_token = $3, lease_until = now() + $4 * interval '1 millisecond', updated_at = $1
           FROM picked, webhook_endpoints e
          WHERE d.id = picked.id AND e.id = d.endpoint_id
         RETURNING d.id, d.event_id, d.event_type, d.account_id, d.endpoint_id, e.url, e.secret_sealed, d.body,
                   d.attempt, d.target_attempt, d.max_attempts, d.failed_over)
       SELECT true AS written, id, NULL AS event_id, NULL AS event_type, NULL AS account_id, NULL AS endpoint_id, NULL AS url,
              NULL AS secret_sealed, NULL::bytea AS body, NULL::int AS attempt, NULL::int AS target_attempt, NULL::int AS max_attempts,
              NULL::boolean AS failed_over
         FROM written
       UNION ALL
       SELECT false, id, event_id, event_type, account_id, endpoint_id, url, secret_sealed, body, attempt, target_attempt, max_attempts, failed_over
         FROM claimed`,
      values: [
        new Date(opts.now), opts.limit, opts.token, opts.leaseMs,
        col((o) => o.delivery.id), col((o) => o.delivery.claimToken), col((o) => o.step.state), col((o) => o.answer.status), col((o) => o.answer.error),
        col((o) => ('nextAttemptAt' in o.step ? new Date(o.step.nextAttemptAt) : null)),
        col((o) => (o.step.state === 'delivered' ? new Date(o.step.deliveredAt) : null)),
        col((o) => ('failoverTo' in o.step ? o.step.failoverTo : null)), col((o) => new Date(o.now)),
        endpoints, endpoints.map((id) => new Date(latest.get(id)!.now)), endpoints.map((id) => latest.get(id)!.answer.status),
        opts.perEndpoint,
      ],
    }));
  } catch (err) {
    // As pool.query does: a client whose query failed is not given back (its connection may be gone).
    client.release(err as Error);
    throw err;
  }
  client.release();
  const written = new Set<string>();
  const claimed: ClaimedDelivery[] = [];
  for (const r of rows) {
    if (r.written) written.add(r.id);
    else {
      claimed.push({
        id: r.id, eventId: r.event_id, eventType: r.event_type, accountId: r.account_id, endpointId: r.endpoint_id,
        url: r.url, secretSealed: r.secret_sealed, body: r.body, attempt: r.attempt, targetAttempt: r.target_attempt,
        maxAttempts: r.max_attempts, failedOver: r.failed_over, claimToken: opts.token,
      });
    }
  }
  return { written, claimed };
}

/** When the next delivery falls due (clock ms), or null when none waits. */
export async function nextDueAt(pool: Pool): Promise<number | null> {
  const { rows } = await pool.query(
    `SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE state IN ('pending', 'failed')`,
  );
  return rows[0].at ? (rows[0].at as Date).getTime() : null;
}
