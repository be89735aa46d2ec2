/**
 * `./bin/ops promo set` and `./bin/ops promo off` (contract.md section 8): the network's promo, through the
 * log. The token's name and issuer (the drop address) are read from the chain here, once, and carried in
 * the command so a replay needs no chain.
 */
import type { ConfigurePromoCommand } from '../domain/commands';
import { PROMO_KEY } from '../domain/commands';
import { isTronAddress } from '../chain/address';
import type { CommandBus } from '../platform/command-bus';
import type { Runtime } from '../chain/clients';
import { Trc10Reader } from '../chain/trc10';
import { loadPromoConfig } from '../promo/store';

export const promoOptions = {
  'token-id': { type: 'string' }, 'grant-energy': { type: 'string' }, 'grant-seconds': { type: 'string' }, 'cap-per-day': { type: 'string' },
  starts: { type: 'string' }, ends: { type: 'string' }, 'forward-address': { type: 'string' },
} as const;

export class PromoUsageError extends Error {}

const positive = (text: unknown, name: string): number => {
  const n = Number(text);
  if (typeof text !== 'string' || !/^\d+$/.test(text) || !Number.isSafeInteger(n) || n <= 0) throw new PromoUsageError(`--${name} must be a positive integer`);
  return n;
};

const instant = (text: unknown, name: string): number | null => {
  if (text === undefined) return null;
  const ms = Date.parse(String(text));
  if (!/^\d{4}-\d\d-\d\dT/.test(String(text)) || Number.isNaN(ms)) throw new PromoUsageError(`--${name} must be an ISO 8601 date-time`);
  return ms;
};

/** Checks the options of `promo set` (before anything is read or written). */
export function promoSetOptions(values: Record<string, unknown>): Omit<ConfigurePromoCommand, 'type' | 'on' | 'tokenName' | 'dropAddress'> {
  const tokenId = values['token-id'];
  if (typeof tokenId !== 'string' || !/^\d{1,19}$/.test(tokenId)) throw new PromoUsageError('--token-id must be a TRC-10 token id (digits)');
  const forward = values['forward-address'];
  if (forward !== undefined && !isTronAddress(String(forward))) throw new PromoUsageError('--forward-address must be a TRON address');
  const startsAt = instant(values.starts, 'starts');
  const endsAt = instant(values.ends, 'ends');
  if (startsAt !== null && endsAt !== null && endsAt <= startsAt) throw new PromoUsageError('--ends must be after --starts');
  return {
    tokenId,
    grantEnergy: positive(values['grant-energy'], 'grant-energy'),
    grantSeconds: positive(values['grant-seconds'], 'grant-seconds'),
    capPerDay: values['cap-per-day'] === undefined ? null : positive(values['cap-per-day'], 'cap-per-day'),
    startsAt,
    endsAt,
    forwardAddress: forward === undefined ? null : String(forward),
  };
}

export async function promoSet(rt: Runtime, bus: CommandBus, values: Record<string, unknown>) {
  const options = promoSetOptions(values);
  const token = await Trc10Reader.fromConfig(rt.cfg).token(options.tokenId);
  if (!token) throw new Error(`no TRC-10 token ${options.tokenId} on the chain (solidified)`);
  return bus.submit({ type: 'promo.configure', accountId: PROMO_KEY, on: true, tokenName: token.name, dropAddress: token.owner, ...options });
}

export async function promoOff(rt: Runtime, bus: CommandBus) {
  const c = await loadPromoConfig(rt.pool);
  return bus.submit({
    type: 'promo.configure', accountId: PROMO_KEY, on: false, tokenId: c?.tokenId ?? '', tokenName: c?.tokenName ?? '', dropAddress: c?.dropAddress ?? '',
    startsAt: c?.startsAt ?? null, endsAt: c?.endsAt ?? null, capPerDay: c?.capPerDay ?? null, grantEnergy: c?.grantEnergy ?? 0,
    grantSeconds: c?.grantSeconds ?? 0, forwardAddress: c?.forwardAddress ?? null,
  });
}
