/**
 * POST /v1/estimates (contract.md section 11; API key orders.read, or a session of any role; the reads
 * budget). The items are checked here (addresses by checksum, amounts as uint256, the token), the chain
 * facts read at the head block (services/chain/transfer-facts.ts, shared per block by every request of
 * this process), and each Estimate computed by the pure rules of domain/estimates.ts.
 */
import { Router } from 'express';
import { ChainUnavailable } from '../../chain/errors';
import type { ChainReader } from '../../chain/reads';
import { NoSuchContract, transferFactsFor } from '../../chain/transfer-facts';
import { estimateTransfers, type TransferItem } from '../../domain/estimates';
import type { Runtime } from '../../chain/clients';
import { requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress } from '../identity-deps';
import { tokenAmount, tokenContract } from '../transfer-input';
import type { RequestValidator } from '../validate';

export interface EstimateRouteDeps {
  rt: Runtime;
  validator: RequestValidator;
  /** Chain reads; default: the runtime's shared reader. */
  chain?: Pick<ChainReader, 'call'>;
}

export function estimatesRouter(deps: EstimateRouteDeps): Router {
  const { rt, validator } = deps;
  const router = Router();
  const facts = transferFactsFor(deps.chain ?? rt.chain.reader);

  router.post('/v1/estimates', requireAuth({ apiKey: { scope: 'orders.read' }, session: { minRole: 'viewer' }, readBudget: true }), validator.for('createEstimates'), async (req, res) => {
    const raw = req.body.items as Array<Record<string, unknown>>;
    const items: TransferItem[] = raw.map((it, i) => ({
      from: checkAddress(it.from as string, `items[${i}].from`),
      to: checkAddress(it.to as string, `items[${i}].to`),
      amount: tokenAmount(it.amount, `items[${i}].amount`),
      token: tokenContract(rt.cfg, it.token, `items[${i}].token`),
    }));
    try {
      const head = await facts.head();
      const [fees, all] = await Promise.all([facts.fees(head.number), facts.facts(head.number, items)]);
      sendJson(res, 200, {
        data: estimateTransfers(items, all, fees, rt.prices),
        chain: { energy_fee_sun: fees.energyFeeSun, bandwidth_fee_sun: fees.bandwidthFeeSun, block_number: head.number, at: new Date(head.timestamp).toISOString() },
      });
    } catch (err) {
      if (err instanceof NoSuchContract) {
        const i = items.findIndex((it) => it.token === err.token);
        throw new ApiError('invalid_request', `\`items[${i}].token\` is not a contract on this network.`, { field: `items[${i}].token` });
      }
      if (err instanceof ChainUnavailable) throw new ApiError('chain_unavailable', 'The node cannot simulate the transfers now.');
      throw err;
    }
  });

  return router;
}
