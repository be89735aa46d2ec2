/** Webhook endpoints and the delivery log as the API reads them. */
import type { Pool } from '../platform/db/pool';

export interface EndpointRow {
  id: string;
  accountId: string;
  url: string;
  role: 'primary' | 'backup';
  events: string[] | null;
  isActive: boolean;
  secretSealed: string;
  lastDeliveryAt: Date | null;
  lastDeliveryStatus: number | null;
  createdAt: Date;
  updatedAt: Date;
}

const columns = 'id, account_id, url, role, events, is_active, secret_sealed, last_delivery_at, last_delivery_status, created_at, updated_at';

function fromRow(r: Record<string, unknown>): EndpointRow {
  return {
    id: r.id as string, accountId: r.account_id as string, url: r.url as string, role: r.role as EndpointRow['role'],
    events: r.events as string[] | null, isActive: r.is_active as boolean, secretSealed: r.secret_sealed as string,
    lastDeliveryAt: r.last_delivery_at as Date | null, lastDeliveryStatus: r.last_delivery_status as number | null,
    createdAt: r.created_at as Date, updatedAt: r.updated_at as Date,
  };
}

export async function listEndpoints(pool: Pool, accountId: string): Promise<EndpointRow[]> {
  const { rows } = await pool.query(`SELECT ${columns} FROM webhook_endpoints WHERE account_id = $1 ORDER BY role DESC, created_at`, [accountId]);
  return rows.map(fromRow);
}

export async function findEndpoint(pool: Pool, accountId: string, id: string): Promise<EndpointRow | null> {
  const { rows } = await pool.query(`SELECT ${columns} FROM webhook_endpoints WHERE id = $1 AND account_id = $2`, [id, accountId]);
  return rows[0] ? fromRow(rows[0]) : null;
}

// Create, edit, rotate and delete are webhook.* commands applied by the processor
// (services/processor/webhook-endpoint-store.ts), so a restore brings endpoints back.

/** Position in a log listing: events of one intake batch share created_at, their log order breaks the tie. */
export interface DeliveryCursor {
  createdAt: Date;
  seq: bigint;
  id: string;
}

export interface DeliveryLogRow {
  id: string;
  seq: bigint;
  eventId: string;
  eventType: string;
  attempt: number;
  state: string;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The endpoint's deliveries (also those that moved away from it on failover), newest first, after the cursor. */
export async function listDeliveries(
  pool: Pool, endpointId: string, limit: number, after: DeliveryCursor | null,
): Promise<DeliveryLogRow[]> {
  const { rows } = await pool.query(
    `SELECT id, seq, event_id, event_type, attempt, state, response_status, error, next_attempt_at, delivered_at, created_at, updated_at
       FROM webhook_deliveries
      WHERE (endpoint_id = $1 OR origin_endpoint_id = $1)
        AND ($3::timestamptz IS NULL OR (created_at, seq, id) < ($3::timestamptz, $4::bigint, $5::text))
      ORDER BY created_at DESC, seq DESC, id DESC
      LIMIT $2`,
    [endpointId, limit, after?.createdAt ?? null, after?.seq ?? null, after?.id ?? null],
  );
  return rows.map((r) => ({
    id: r.id, seq: r.seq, eventId: r.event_id, eventType: r.event_type, attempt: r.attempt, state: r.state, responseStatus: r.response_status,
    error: r.error, nextAttemptAt: r.next_attempt_at, deliveredAt: r.delivered_at, createdAt: r.created_at, updatedAt: r.updated_at,
  }));
}
