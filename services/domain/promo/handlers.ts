/**
 * Promo commands. All of them share one partition key (PROMO_KEY), so the processor applies them one
 * after another: the daily cap and "one grant per address" are decided here, exactly.
 */
import type { CommandOf } from '../commands';
import { domainError } from '../errors';
import { noEffects, rejected, type Handler, type Outcome, type PromoView } from '../outcome';
import { claimRefusal, devCodeView, entryRefusal, redemptionView, utcDay, type DevCode, type PromoConfig, type Redemption } from './rules';

const promoOf = (view: PromoView | undefined): PromoView => {
  if (!view) throw new Error('promo state not loaded for a promo command');
  return view;
};

export const configurePromo: Handler<CommandOf<'promo.configure'>> = (_state, c) => {
  const config: PromoConfig = {
    on: c.on, tokenId: c.tokenId, tokenName: c.tokenName, dropAddress: c.dropAddress, startsAt: c.startsAt, endsAt: c.endsAt,
    capPerDay: c.capPerDay, grantEnergy: c.grantEnergy, grantSeconds: c.grantSeconds, forwardAddress: c.forwardAddress,
  };
  return { kind: 'applied', status: 200, body: { on: c.on, token_id: c.tokenId }, effects: { ...noEffects(), promoConfig: config } };
};

export const redeemPromo: Handler<CommandOf<'promo.redeem'>> = (state, c) => {
  const promo = promoOf(state.promo);
  const config = promo.config();
  const day = utcDay(c.issuedAt);
  const refusal = claimRefusal(config, c.issuedAt, promo.grantsOn(day), promo.redemption(c.address));
  if (refusal || !config) return rejected(domainError(refusal ?? 'promo_redeem_unavailable'));
  const redemption: Redemption = {
    address: c.address, method: c.method, redeemedAt: c.issuedAt, day, status: 'granting', energy: config.grantEnergy,
    durationSeconds: config.grantSeconds, expiresAt: null, delegateTxId: null, delegateSignedTx: null, poolAddress: null, stakeSun: null,
    undelegateTxId: null, undelegateSignedTx: null, returnedAt: null, failure: null,
  };
  return { kind: 'applied', status: 201, body: redemptionView(redemption), effects: { ...noEffects(), redemptions: [redemption] } };
};

const changed = (r: Redemption): Outcome => ({ kind: 'applied', status: 200, body: { ...redemptionView(r), changed: true }, effects: { ...noEffects(), redemptions: [r] } });

export const grantPromo: Handler<CommandOf<'promo.grant'>> = (state, c) => {
  const r = promoOf(state.promo).redemption(c.address);
  if (!r) return rejected(domainError('not_found', 'No redemption for this address.'));
  const unchanged: Outcome = { kind: 'applied', status: 200, body: { ...redemptionView(r), changed: false }, effects: noEffects() };
  switch (c.step) {
    case 'signed':
      // The first stored delegation is the only one ever broadcast: a grant cannot be made twice.
      if (r.status !== 'granting' || r.delegateTxId !== null) return unchanged;
      return changed({ ...r, delegateTxId: c.txId, delegateSignedTx: c.signedTx, poolAddress: c.poolAddress, stakeSun: c.stakeSun });
    case 'delegated':
      if (r.status !== 'granting' || r.delegateTxId === null || r.delegateTxId !== c.txId) return unchanged;
      return changed({ ...r, status: 'delegated', expiresAt: c.at + r.durationSeconds * 1000 });
    case 'failed':
      if (r.status !== 'granting') return unchanged;
      return changed({ ...r, status: 'failed', failure: c.failure });
    case 'return_signed':
      if (r.status !== 'delegated' || r.returnedAt !== null) return unchanged;
      return changed({ ...r, undelegateTxId: c.txId, undelegateSignedTx: c.signedTx });
    case 'returned':
      if (r.status !== 'delegated' || r.returnedAt !== null) return unchanged;
      return changed({ ...r, returnedAt: c.at });
  }
};

/** One personal code per wallet: 201 when issued now, 200 with the same code on any later claim. */
export const claimDevCode: Handler<CommandOf<'promo.dev_code'>> = (state, c, ctx) => {
  if (ctx.network !== 'nile') return rejected(domainError('promo_redeem_unavailable', 'Dev codes exist on the test network only.'));
  const existing = promoOf(state.promo).devCode(c.address);
  if (existing) return { kind: 'applied', status: 200, body: devCodeView(existing), effects: noEffects() };
  const code: DevCode = {
    address: c.address, code: c.code, feeBps: c.feeBps, durationDays: c.durationDays, activateBy: c.activateBy, issuedAt: c.issuedAt,
    enteredAccountId: null, enteredAt: null,
  };
  return { kind: 'applied', status: 201, body: devCodeView(code), effects: { ...noEffects(), devCodes: [code] } };
};

/** An account enters a code: once, by `activate_by`; it runs `duration_days` from now. */
export const enterDevCode: Handler<CommandOf<'promo.dev_code_enter'>> = (state, c) => {
  const code = promoOf(state.promo).devCodeByCode(c.code);
  const refusal = entryRefusal(code, c.issuedAt);
  if (refusal || !code) return rejected(domainError(refusal ?? 'not_found', refusal === 'promo_already_redeemed' ? 'This code was used already.' : undefined));
  const entered: DevCode = { ...code, enteredAccountId: c.targetAccountId, enteredAt: c.issuedAt };
  const body = { ...devCodeView(entered), account_id: c.targetAccountId, entered_at: new Date(c.issuedAt).toISOString(), active_until: new Date(c.issuedAt + code.durationDays * 86_400_000).toISOString() };
  return { kind: 'applied', status: 200, body, effects: { ...noEffects(), devCodes: [entered] } };
};
