import { claimRefusal, nextUtcMidnight, promoState, promoView, utcDay, type PromoConfig, type Redemption } from '../../../services/domain/promo/rules';
import { grantPromo, redeemPromo } from '../../../services/domain/promo/handlers';
import type { PromoView } from '../../../services/domain/outcome';

const NOW = Date.parse('2026-11-22T15:00:00Z');
const config: PromoConfig = {
  on: true, tokenId: '1000001', tokenName: 'PROMO', dropAddress: 'TDrop', startsAt: null, endsAt: null, capPerDay: 2,
  grantEnergy: 50_000, grantSeconds: 3600, forwardAddress: null,
};
const ctx = { network: 'nile' as const, brand: 'energy' };

function view(c: PromoConfig | null, redemptions: Redemption[] = [], today = 0): PromoView {
  return { config: () => c, redemption: (a) => redemptions.find((r) => r.address === a), grantsOn: () => today, devCode: () => undefined, devCodeByCode: () => undefined };
}
const meta = { commandId: 'cmd_1', accountId: 'promo', issuedAt: NOW, deadlineAt: null, replyTo: null };

describe('promo state', () => {
  it('names every state in order: off, not_started, ended, cap_reached_today, active', () => {
    expect(promoState(null, NOW, 0)).toBe('off');
    expect(promoState({ ...config, on: false }, NOW, 0)).toBe('off');
    expect(promoState({ ...config, startsAt: NOW + 1 }, NOW, 0)).toBe('not_started');
    expect(promoState({ ...config, endsAt: NOW }, NOW, 0)).toBe('ended');
    expect(promoState(config, NOW, 2)).toBe('cap_reached_today');
    expect(promoState(config, NOW, 1)).toBe('active');
    expect(promoState({ ...config, capPerDay: null }, NOW, 1_000)).toBe('active');
  });

  it('resets at the next UTC midnight and counts days in UTC', () => {
    expect(new Date(nextUtcMidnight(NOW)).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(utcDay(Date.parse('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
    expect(promoView('nile', config, NOW, 2)).toMatchObject({ state: 'cap_reached_today', left_today: 0, resets_at: '2026-11-23T00:00:00.000Z' });
    expect(promoView('nile', null, NOW, 0)).toEqual({
      network: 'nile', state: 'off', starts_at: null, ends_at: null, cap_per_day: null, left_today: null, resets_at: null, grant: null, token: null, forward_address: null,
    });
  });

  it('refuses claims: unavailable first, then already redeemed, then the cap', () => {
    const existing = { address: 'TA' } as Redemption;
    expect(claimRefusal(null, NOW, 0, undefined)).toBe('promo_redeem_unavailable');
    expect(claimRefusal(config, NOW, 0, existing)).toBe('promo_already_redeemed');
    expect(claimRefusal(config, NOW, 2, existing)).toBe('promo_already_redeemed');
    expect(claimRefusal(config, NOW, 2, undefined)).toBe('promo_redeem_unavailable');
    expect(claimRefusal(config, NOW, 1, undefined)).toBeNull();
  });
});

describe('promo handlers', () => {
  it('accepts a claim as granting, counted on its UTC day', () => {
    const out = redeemPromo({ account: () => undefined, promo: view(config) }, { ...meta, type: 'promo.redeem', address: 'TA', method: 'signature', forwardTxId: null }, ctx);
    expect(out.kind).toBe('applied');
    if (out.kind !== 'applied') return;
    expect(out.effects.redemptions?.[0]).toMatchObject({ address: 'TA', status: 'granting', day: '2026-11-22', energy: 50_000 });
  });

  it('stores the first signed delegation only, so a grant is never signed twice', () => {
    const base = redeemPromo({ account: () => undefined, promo: view(config) }, { ...meta, type: 'promo.redeem', address: 'TA', method: 'signature', forwardTxId: null }, ctx);
    if (base.kind !== 'applied') throw new Error('claim refused');
    const r = base.effects.redemptions![0];
    const signed = (txId: string) => ({ ...meta, type: 'promo.grant' as const, address: 'TA', step: 'signed' as const, txId, signedTx: '{}', poolAddress: 'TP', stakeSun: 1n, at: NOW, failure: null });
    const first = grantPromo({ account: () => undefined, promo: view(config, [r]) }, signed('a'), ctx);
    if (first.kind !== 'applied') throw new Error('refused');
    const stored = first.effects.redemptions![0];
    expect(stored.delegateTxId).toBe('a');
    const second = grantPromo({ account: () => undefined, promo: view(config, [stored]) }, signed('b'), ctx);
    expect(second.kind === 'applied' && second.effects.redemptions).toBeUndefined();
    const wrong = grantPromo({ account: () => undefined, promo: view(config, [stored]) }, { ...signed('b'), step: 'delegated' }, ctx);
    expect(wrong.kind === 'applied' && wrong.effects.redemptions).toBeUndefined();
    const done = grantPromo({ account: () => undefined, promo: view(config, [stored]) }, { ...signed('a'), step: 'delegated' }, ctx);
    expect(done.kind === 'applied' && done.effects.redemptions?.[0]).toMatchObject({ status: 'delegated', expiresAt: NOW + 3_600_000 });
  });
});
