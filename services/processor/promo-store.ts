/**
 * The promo tables inside the processor's transaction: PromoState loads what a slice's promo commands
 * touch, serves it to the pure handlers with the slice's own changes on top, and writes the changes back.
 */
import type { Command } from '../domain/commands';
import type { Effects, PromoView } from '../domain/outcome';
import { upsertRows } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { utcDay, type DevCode, type PromoConfig, type Redemption } from '../domain/promo/rules';
import { devCodeFromRow, grantsOnDay, loadPromoConfig, redemptionColumns, redemptionFromRow, redemptionToRow, selected } from '../promo/store';
import type { FeatureState } from './feature-state';
import { KeyedRows } from './keyed-rows';

const date = (n: number | null) => (n === null ? null : new Date(n));

const promoTypes = new Set(['promo.configure', 'promo.redeem', 'promo.grant', 'promo.dev_code', 'promo.dev_code_enter']);

export class PromoState implements PromoView, FeatureState {
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

  absorb(effects: Effects, command: Command): void {
    if (effects.promoConfig) this.putConfig(effects.promoConfig, command.commandId);
    for (const redemption of effects.redemptions ?? []) this.putRedemption(redemption);
    for (const code of effects.devCodes ?? []) this.putDevCode(code);
  }

  async write(client: PoolClient): Promise<void> {
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
