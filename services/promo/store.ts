/**
 * Promo rows: their mapping and the reads of the API, the granter and the processor's PromoState
 * (services/processor/promo-store.ts). Only the processor writes these tables.
 */
import type { Pool } from '../platform/db/pool';
import { type DevCode, type PromoConfig, type Redemption } from '../domain/promo/rules';

type Queryable = Pick<Pool, 'query'>;

const ms = (d: Date | null) => (d === null ? null : d.getTime());
const date = (n: number | null) => (n === null ? null : new Date(n));

export const redemptionColumns = [
  'address', 'method', 'redeemed_at', 'day', 'status', 'energy', 'duration_seconds', 'expires_at', 'delegate_tx_id', 'delegate_signed_tx',
  'pool_address', 'stake_sun', 'undelegate_tx_id', 'undelegate_signed_tx', 'returned_at', 'failure',
];

export function redemptionFromRow(r: Record<string, any>): Redemption {
  return {
    address: r.address, method: r.method, redeemedAt: ms(r.redeemed_at) as number, day: String(r.day), status: r.status,
    energy: Number(r.energy), durationSeconds: Number(r.duration_seconds), expiresAt: ms(r.expires_at), delegateTxId: r.delegate_tx_id,
    delegateSignedTx: r.delegate_signed_tx, poolAddress: r.pool_address, stakeSun: r.stake_sun === null ? null : BigInt(r.stake_sun),
    undelegateTxId: r.undelegate_tx_id, undelegateSignedTx: r.undelegate_signed_tx, returnedAt: ms(r.returned_at), failure: r.failure,
  };
}

/** The select list: `day` as text, so no time zone ever touches it. */
export const selected = redemptionColumns.map((c) => (c === 'day' ? 'day::text AS day' : c)).join(', ');

export const redemptionToRow = (x: Redemption): unknown[] => [
  x.address, x.method, new Date(x.redeemedAt), x.day, x.status, x.energy, x.durationSeconds, date(x.expiresAt), x.delegateTxId,
  x.delegateSignedTx, x.poolAddress, x.stakeSun, x.undelegateTxId, x.undelegateSignedTx, date(x.returnedAt), x.failure,
];

export async function loadPromoConfig(db: Queryable): Promise<PromoConfig | null> {
  const { rows } = await db.query('SELECT * FROM promo_config WHERE id = 1');
  const r = rows[0];
  if (!r) return null;
  return {
    on: r.is_on, tokenId: r.token_id, tokenName: r.token_name, dropAddress: r.drop_address, startsAt: ms(r.starts_at), endsAt: ms(r.ends_at),
    capPerDay: r.cap_per_day, grantEnergy: Number(r.grant_energy), grantSeconds: Number(r.grant_seconds), forwardAddress: r.forward_address,
  };
}

export async function grantsOnDay(db: Queryable, day: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM promo_redemptions WHERE day = $1', [day]);
  return rows[0].n as number;
}

export async function loadRedemption(db: Queryable, address: string): Promise<Redemption | undefined> {
  const { rows } = await db.query(`SELECT ${selected} FROM promo_redemptions WHERE address = $1`, [address]);
  return rows[0] ? redemptionFromRow(rows[0]) : undefined;
}

/** The granter's work: grants not delegated yet, and delegations not returned yet. */
export async function openRedemptions(db: Queryable, limit: number): Promise<Redemption[]> {
  const { rows } = await db.query(
    `SELECT ${selected} FROM promo_redemptions
     WHERE returned_at IS NULL AND status IN ('granting', 'delegated') ORDER BY redeemed_at LIMIT $1`,
    [limit],
  );
  return rows.map(redemptionFromRow);
}

export const devCodeFromRow = (r: Record<string, any>): DevCode => ({
  address: r.address, code: r.code, feeBps: r.fee_bps, durationDays: r.duration_days, activateBy: ms(r.activate_by), issuedAt: ms(r.issued_at) as number,
  enteredAccountId: r.entered_account_id, enteredAt: ms(r.entered_at),
});

export async function loadDevCode(db: Queryable, address: string): Promise<DevCode | undefined> {
  const { rows } = await db.query('SELECT * FROM promo_dev_codes WHERE address = $1', [address]);
  return rows[0] ? devCodeFromRow(rows[0]) : undefined;
}

