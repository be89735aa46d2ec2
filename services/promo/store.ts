/**
 * Promo rows: the processor's PromoState (loads what a batch's promo commands touch, serves it to the
 * pure handlers with the batch's own changes on top, writes the changes back) and the reads of the API
 * and the granter. Only the processor writes these tables.
 */
import type { Command } from '../domain/commands';
import type { PromoView } from '../domain/outcome';
import { upsertRows } from '../platform/db/bulk';
import { KeyedRows } from '../processor/keyed-rows';
import type { Pool, PoolClient } from '../platform/db/pool';
import { utcDay, type DevCode, type PromoConfig, type Redemption } from '../domain/promo/rules';

type Queryable = Pick<Pool, 'query'>;

const ms = (d: Date | null) => (d === null ? null : d.getTime());
const date = (n: number | null) => (n === null ? null : new Date(n));

const redemptionColumns = [
  'address', 'method', 'redeemed_at', 'day', 'status', 'energy', 'duration_seconds', 'expires_at', 'delegate_tx_id', 'delegate_signed_tx',
  'pool_address', 'stake_sun', 'undelegate_tx_id', 'undelegate_signed_tx', 'returned_at', 'failure',
];

function redemptionFromRow(r: Record<string, any>): Redemption {
  return {
    address: r.address, method: r.method, redeemedAt: ms(r.redeemed_at) as number, day: String(r.day), status: r.status,
    energy: Number(r.energy), durationSeconds: Number(r.duration_seconds), expiresAt: ms(r.expires_at), delegateTxId: r.delegate_tx_id,
    delegateSignedTx: r.delegate_signed_tx, poolAddress: r.pool_address, stakeSun: r.stake_sun === null ? null : BigInt(r.stake_sun),
    undelegateTxId: r.undelegate_tx_id, undelegateSignedTx: r.undelegate_signed_tx, returnedAt: ms(r.returned_at), failure: r.failure,
  };
}

/** The select list: `day` as text, so no time zone ever touches it. */
const selected = redemptionColumns.map((c) => (c === 'day' ? 'day::text AS day' : c)).join(', ');

const redemptionToRow = (x: Redemption): unknown[] => [
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

const devCodeFromRow = (r: Record<string, any>): DevCode => ({
  address: r.address, code: r.code, feeBps: r.fee_bps, durationDays: r.duration_days, activateBy: ms(r.activate_by), issuedAt: ms(r.issued_at) as number,
  enteredAccountId: r.entered_account_id, enteredAt: ms(r.entered_at),
});

export async function loadDevCode(db: Queryable, address: string): Promise<DevCode | undefined> {
  const { rows } = await db.query('SELECT * FROM promo_dev_codes WHERE address = $1', [address]);
  return rows[0] ? devCodeFromRow(rows[0]) : undefined;
}

const promoTypes = new Set(['promo.configure', 'promo.redeem', 'promo.grant', 'promo.dev_code', 'promo.dev_code_enter']);

export class PromoState implements PromoView {
  private configValue: PromoConfig | null = null;
  private configCommandId: string | null = null;
  private readonly byAddress = new KeyedRows<Redemption>((r) => r.address);
  private readonly counts = new Map<string, number>();
  private readonly codes = new KeyedRows<DevCode>((c) => c.address);

  static async load(client: PoolClient, commands: Command[]): Promise<PromoState> {
    const state = new PromoState();
    const promo = commands.filter((c) => promoTypes.has(c.type));
    if (promo.length === 0) return state;
    state.configValue = await loadPromoConfig(client);
    const addresses = [...new Set(promo.flatMap((c) => ('address' in c && typeof c.address === 'string' ? [c.address] : [])))];
    if (addresses.length) {
      const { rows } = await client.query(`SELECT ${selected} FROM promo_redemptions WHERE address = ANY($1::text[])`, [addresses]);
      for (const r of rows) state.byAddress.load(redemptionFromRow(r));
      const codes = await client.query('SELECT * FROM promo_dev_codes WHERE address = ANY($1::text[])', [addresses]);
      for (const r of codes.rows) state.codes.load(devCodeFromRow(r));
    }
    const entered = promo.flatMap((c) => (c.type === 'promo.dev_code_enter' ? [c.code] : []));
    if (entered.length) {
      const codes = await client.query('SELECT * FROM promo_dev_codes WHERE code = ANY($1::text[])', [entered]);
      for (const r of codes.rows) state.codes.load(devCodeFromRow(r));
    }
    for (const day of new Set(promo.filter((c) => c.type === 'promo.redeem').map((c) => utcDay(c.issuedAt)))) {
      state.counts.set(day, await grantsOnDay(client, day));
    }
    return state;
  }

  config(): PromoConfig | null {
    return this.configValue;
  }

  redemption(address: string): Redemption | undefined {
    return this.byAddress.get(address);
  }

  grantsOn(day: string): number {
    return this.counts.get(day) ?? 0;
  }

  devCode(address: string): DevCode | undefined {
    return this.codes.get(address);
  }

  devCodeByCode(code: string): DevCode | undefined {
    for (const c of this.codes.values()) if (c.code === code) return c;
    return undefined;
  }

  putDevCode(code: DevCode): void {
    this.codes.put(code);
  }

  putConfig(config: PromoConfig, commandId: string): void {
    this.configValue = config;
    this.configCommandId = commandId;
  }

  putRedemption(r: Redemption): void {
    if (this.byAddress.get(r.address) === undefined) this.counts.set(r.day, this.grantsOn(r.day) + 1);
    this.byAddress.put(r);
  }

  async save(client: PoolClient): Promise<void> {
    const c = this.configValue;
    if (c && this.configCommandId) {
      await upsertRows(
        client, 'promo_config',
        ['id', 'is_on', 'token_id', 'token_name', 'drop_address', 'starts_at', 'ends_at', 'cap_per_day', 'grant_energy', 'grant_seconds', 'forward_address', 'command_id'],
        [[1, c.on, c.tokenId, c.tokenName, c.dropAddress, date(c.startsAt), date(c.endsAt), c.capPerDay, c.grantEnergy, c.grantSeconds, c.forwardAddress, this.configCommandId]],
        { key: 'id' },
      );
    }
    await upsertRows(
      client, 'promo_dev_codes', ['address', 'code', 'fee_bps', 'duration_days', 'activate_by', 'issued_at', 'entered_account_id', 'entered_at'],
      this.codes.changed().map((c) => [
        c.address, c.code, c.feeBps, c.durationDays, date(c.activateBy), new Date(c.issuedAt), c.enteredAccountId, date(c.enteredAt),
      ]),
      // A code once issued changes only when it is entered.
      { key: 'address', keep: ['code', 'fee_bps', 'duration_days', 'activate_by', 'issued_at'] },
    );
    await upsertRows(client, 'promo_redemptions', redemptionColumns, this.byAddress.changed().map(redemptionToRow), { key: 'address' });
  }
}
