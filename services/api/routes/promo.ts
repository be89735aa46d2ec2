/**
 * Promo (spec section 4, Promo): GET /v1/promo, the redeem challenge, redeem by signature, and the
 * redemption read. Claims go through the log (promo.redeem on the PROMO_KEY partition), so the daily cap
 * and "one grant per address" are decided by the processor, one claim after another.
 */
import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { PROMO_KEY } from '../../domain/commands';
import { toIso } from '../../platform/clock';
import type { CommandBus } from '../../platform/command-bus';
import type { Runtime } from '../../chain/clients';
import { ChainUnavailable } from '../../chain/errors';
import { DropLog } from '../../promo/drop-log';
import { claimRefusal, DAY_MS, DEV_CODE_DAYS, DEV_CODE_FEE_BPS, promoView, redemptionView, utcDay, type PromoConfig } from '../../domain/promo/rules';
import { grantsOnDay, loadPromoConfig, loadRedemption } from '../../promo/store';
import { proofBudget, publicReadBudget } from '../auth/budget';
import { proveAddress } from '../auth/challenge-proof';
import { clientIp } from '../auth/credentials';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { challengeBudget, issueChallenge } from '../auth/issue-challenge';
import { issueWalletTicket } from '../auth/wallet-ticket';
import { ApiError, sendJson } from '../errors';
import { checkAddress, submitCommand } from '../identity-deps';
import { accountIdFor } from '../stores/accounts';
import type { RequestValidator } from '../validate';


export interface PromoRouteDeps {
  rt: Runtime;
  bus: CommandBus;
  validator: RequestValidator;
  /** The drop log (tests may share one); default: read through the chain adapter on TRON_FULL_HOST. */
  drops?: DropLog;
}

export function promoRouter(deps: PromoRouteDeps): Router {
  const { rt, bus, validator } = deps;
  const router = Router();
  const drops = deps.drops ?? new DropLog(rt.chain.trc10, rt.cfg.PROMO_DROP_FROM_BLOCK);
  let cached: { at: number; body: Record<string, unknown> } | null = null;

  const current = async (): Promise<{ config: PromoConfig | null; now: number; today: number }> => {
    const now = rt.clock.now();
    const config = await loadPromoConfig(rt.pool);
    return { config, now, today: config ? await grantsOnDay(rt.pool, utcDay(now)) : 0 };
  };

  /** 3038 unless the address received the token from the drop; 5003 when the drop log cannot be read. */
  const checkEligible = async (config: PromoConfig, address: string) => {
    let received: boolean;
    try {
      received = await drops.received(config.tokenId, config.dropAddress, address);
    } catch (err) {
      if (err instanceof ChainUnavailable) throw new ApiError('chain_unavailable');
      throw err;
    }
    if (!received) throw new ApiError('promo_not_eligible');
  };

  router.get('/v1/promo', validator.for('getPromo'), publicReadBudget(rt), async (_req, res) => {
    const now = rt.clock.now();
    if (!cached || now - cached.at >= rt.cfg.PROMO_CACHE_MS || now < cached.at) {
      const c = await current();
      cached = { at: now, body: promoView(rt.cfg.NETWORK, c.config, c.now, c.today) };
    }
    res.setHeader('Cache-Control', `public, max-age=${Math.floor(rt.cfg.PROMO_CACHE_MS / 1000)}`);
    sendJson(res, 200, cached.body);
  });

  router.post('/v1/promo/redeem/challenge', validator.for('createPromoRedeemChallenge'), challengeBudget(rt), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    // Eligibility before anything is signed: the same checks the processor makes, on current rows.
    const { config, now, today } = await current();
    const refusal = claimRefusal(config, now, today, await loadRedemption(rt.pool, address));
    if (refusal) throw new ApiError(refusal);
    await checkEligible(config as PromoConfig, address);
    sendJson(res, 201, await issueChallenge(rt, address, 'promo_redeem'));
  });

  router.post('/v1/promo/redeem', validator.for('redeemPromo'), proofBudget(rt), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    await proveAddress(rt, clientIp(req), address, req.body.nonce, req.body.signature, ['promo_redeem']);
    const config = await loadPromoConfig(rt.pool);
    if (!config || !config.on) throw new ApiError('promo_redeem_unavailable');
    await checkEligible(config, address);
    const result = await submitCommand(bus, { type: 'promo.redeem', accountId: PROMO_KEY, address, method: 'signature', forwardTxId: null });
    cached = null;
    const ticket = await issueWalletTicket(rt, address);
    sendJson(res, 201, {
      ...result.body,
      has_account: await hasAccount(rt, address),
      wallet_ticket: { token: ticket.token, expires_at: toIso(ticket.expiresAt) },
    });
  });

  /** Test network only: the promo set up (3040), the wallet in the drop (3038; 5003 when unreadable). */
  const checkDevEligible = async (address: string) => {
    const config = await loadPromoConfig(rt.pool);
    if (rt.cfg.NETWORK !== 'nile' || !config || !config.on) throw new ApiError('promo_redeem_unavailable');
    await checkEligible(config, address);
    return config;
  };

  router.post('/v1/promo/dev/challenge', validator.for('createPromoDevChallenge'), challengeBudget(rt), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    await checkDevEligible(address);
    sendJson(res, 201, await issueChallenge(rt, address, 'promo_dev_code'));
  });

  router.post('/v1/promo/dev/claim', validator.for('claimPromoDevCode'), proofBudget(rt), async (req, res) => {
    const address = checkAddress(req.body.address, 'address');
    await proveAddress(rt, clientIp(req), address, req.body.nonce, req.body.signature, ['promo_dev_code']);
    const config = await checkDevEligible(address);
    const now = rt.clock.now();
    const activateBy = config.endsAt ?? now + DEV_CODE_DAYS * DAY_MS;
    const code = `DEV-${randomBytes(6).toString('hex').toUpperCase()}`;
    const result = await submitCommand(bus, {
      type: 'promo.dev_code', accountId: PROMO_KEY, address, code, feeBps: DEV_CODE_FEE_BPS, durationDays: DEV_CODE_DAYS, activateBy,
    });
    sendJson(res, result.status, result.body);
  });

  // Entering a dev code: the account's owner in the dashboard, or an API key with orders.write.
  const enterer = requireAuth({ apiKey: { scope: 'orders.write' }, session: { minRole: 'owner' } });
  router.post('/v1/account/promo', enterer, validator.for('enterPromoCode'), async (req, res) => {
    const result = await submitCommand(bus, { type: 'promo.dev_code_enter', accountId: PROMO_KEY, code: req.body.code, targetAccountId: accountIdOf(res) });
    sendJson(res, 200, result.body);
  });

  router.get('/v1/promo/redemptions/:address', validator.for('getPromoRedemption'), publicReadBudget(rt), async (req, res) => {
    const address = checkAddress(req.params.address as string, 'address');
    const redemption = await loadRedemption(rt.pool, address);
    if (!redemption) throw new ApiError('not_found', 'This address has not claimed the promo.');
    sendJson(res, 200, redemptionView(redemption));
  });

  return router;
}

/** The wallet already opens an account: its own, or one it is a member of. */
async function hasAccount(rt: Runtime, address: string): Promise<boolean> {
  const { rows } = await rt.pool.query(
    'SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1) OR EXISTS (SELECT 1 FROM account_members WHERE address = $2) AS yes',
    [accountIdFor(rt.cfg.BRAND, rt.cfg.NETWORK, address), address],
  );
  return rows[0].yes === true;
}
