/** Quotes: written and read by the API only (POST /v1/quotes, then an order that names one). */
import type { Pool } from '../../platform/db/pool';

export interface QuoteRow {
  id: string;
  accountId: string;
  resource: 'energy' | 'bandwidth' | 'activation';
  amount: number | null;
  tier: string | null;
  receiver: string;
  priceSunPerUnit: bigint | null;
  paySun: bigint;
  activateSun: bigint;
  totalSun: bigint;
  receiverActive: boolean;
  expiresAt: number;
  createdAt: number;
}

export async function insertQuote(pool: Pool, q: QuoteRow): Promise<void> {
  await pool.query(
    `INSERT INTO quotes (id, account_id, resource, amount, tier, receiver, price_sun_per_unit, pay_amount_sun, activate_amount_sun,
       total_amount_sun, receiver_active, expires_at, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
    [q.id, q.accountId, q.resource, q.amount, q.tier, q.receiver, q.priceSunPerUnit, q.paySun, q.activateSun, q.totalSun, q.receiverActive, new Date(q.expiresAt), new Date(q.createdAt)],
  );
}

export async function quoteById(pool: Pool, accountId: string, id: string): Promise<QuoteRow | undefined> {
  const { rows } = await pool.query('SELECT * FROM quotes WHERE id = $1 AND account_id = $2', [id, accountId]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: r.id, accountId: r.account_id, resource: r.resource, amount: r.amount === null ? null : Number(r.amount), tier: r.tier, receiver: r.receiver,
    priceSunPerUnit: r.price_sun_per_unit, paySun: r.pay_amount_sun, activateSun: r.activate_amount_sun, totalSun: r.total_amount_sun,
    receiverActive: r.receiver_active, expiresAt: r.expires_at.getTime(), createdAt: r.created_at.getTime(),
  };
}
