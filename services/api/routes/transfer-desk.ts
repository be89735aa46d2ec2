/**
 * The transfer desk's public reads (contract.md section 12; no credentials, the public read budget):
 * GET /v1/transfer-desk, the terms a wallet pays by, and GET /v1/transfer-desk/orders/{txid}, the Order a
 * confirmed payment placed (404 until the watcher saw it confirmed), so a wallet app can show progress.
 */
import { Router } from 'express';
import type { Runtime } from '../../chain/clients';
import { deskAccountId } from '../../domain/desk/rules';
import { orderDetailJson } from '../../domain/orders/view';
import { paymentByTxid } from '../../desk/reads';
import { orderById } from '../../orders/account-reads';
import { deskTermsOf } from '../../platform/config';
import { publicReadBudget } from '../auth/budget';
import { ApiError, sendJson } from '../errors';
import type { RequestValidator } from '../validate';

const TXID = /^[0-9a-fA-F]{64}$/;

export interface DeskRouteDeps {
  rt: Runtime;
  validator: RequestValidator;
}

export function transferDeskRouter({ rt, validator }: DeskRouteDeps): Router {
  const router = Router();
  const terms = deskTermsOf(rt.cfg);
  const address = rt.cfg.DESK_ADDRESS ?? null;
  const accountId = deskAccountId(rt.cfg.NETWORK, rt.cfg.BRAND);
  const noDesk = () => new ApiError('not_found', 'This deployment has no transfer desk.');

  router.get('/v1/transfer-desk', validator.for('getTransferDesk'), publicReadBudget(rt), (_req, res) => {
    if (address === null) throw noDesk();
    sendJson(res, 200, {
      network: rt.cfg.NETWORK, address, price_sun_per_unit: terms.priceSunPerUnit, tier: terms.tier, duration_seconds: terms.durationSeconds,
      min_sun: terms.minSun, max_sun: terms.maxSun, confirmations_required: rt.cfg.DEPOSIT_CONFIRMATIONS, as_of: new Date(rt.clock.now()).toISOString(),
    });
  });

  router.get('/v1/transfer-desk/orders/:txid', validator.for('getTransferDeskOrder'), publicReadBudget(rt), async (req, res) => {
    if (address === null) throw noDesk();
    const txid = String(req.params.txid);
    if (!TXID.test(txid)) throw new ApiError('invalid_request', 'txid must be a transaction id: 64 hex characters.', { field: 'txid' });
    const payment = await paymentByTxid(rt.pool, txid.toLowerCase());
    const order = payment?.orderId ? await orderById(rt.pool, accountId, payment.orderId) : undefined;
    if (!order) throw new ApiError('not_found', 'No confirmed desk payment with this transaction id (yet).');
    sendJson(res, 200, orderDetailJson(order));
  });

  return router;
}
