/**
 * POST /v1/estimates (contract.md section 11; API key orders.read, or a session of any role; the reads
 * budget). The items are checked here (addresses by checksum, amounts as uint256, the token), the chain
 * facts read at the head block (services/chain/transfer-facts.ts, shared per block by every request of
 * this process), and each Estimate computed by the pure rules of domain/estimates.ts.
 */
import { Router } from 'express';
import { ChainUnavailable } from '../../chain/errors';
import type { ChainReader } from '../../chain/reads';
import { NoSuchContract, TransferFactsReader } from '../../chain/transfer-facts';
import { estimateTransfers, type TransferItem } from '../../domain/estimates';
import type { Runtime } from '../../platform/runtime';
import { requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress } from '../identity-deps';
import type { RequestValidator } from '../validate';

const UINT256_MAX = (1n << 256n) - 1n;

/** An integer string or an integer (a bigint past 2^53), 0..2^256-1; anything else is the caller's 400. */
export function tokenAmount(value: unknown, field: string): bigint {
  let amount: bigint | null = null;
  if (typeof value === 'string' && /^[0-9]{1,78}$/.test(value)) amount = BigInt(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value)) amount = BigInt(value);
  else if (typeof value === 'bigint') amount = value;
  if (amount === null || amount < 0n || amount > UINT256_MAX) {
    throw new ApiError('invalid_request', `\`${field}\` must be a non-negative integer (an integer string or an integer) of at most 256 bits.`, { field });
  }
  return amount;
}

export interface EstimateRouteDeps {
  rt: Runtime;
  validator: RequestValidator;
  /** Chain reads; default: the runtime's shared reader. */
  chain?: Pick<ChainReader, 'call'>;
}

export function estimatesRouter(deps: EstimateRouteDeps): Router {
  const { rt, validator } = deps;
  const router = Router();
  const facts = new TransferFactsReader(deps.chain ?? rt.chain.reader);

  const tokenOf = (value: unknown, field: string): string => {
    if (value === undefined || value === 'USDT') {
      if (!rt.cfg.USDT_CONTRACT) throw new ApiError('invalid_request', 'This deployment has no USDT contract; give the token address.', { field });
      return rt.cfg.USDT_CONTRACT;
    }
    if (typeof value !== 'string' || !/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value)) {
      throw new ApiError('invalid_request', `\`${field}\` must be \`USDT\` or a TRC-20 contract address.`, { field });
    }
    return checkAddress(value, field);
  };

  router.post('/v1/estimates', requireAuth({ apiKey: { scope: 'orders.read' }, session: { minRole: 'viewer' }, readBudget: true }), validator.for('createEstimates'), async (req, res) => {
    const raw = req.body.items as Array<Record<string, unknown>>;
    const items: TransferItem[] = raw.map((it, i) => ({
      from: checkAddress(it.from as string, `items[${i}].from`),
      to: checkAddress(it.to as string, `items[${i}].to`),
      amount: tokenAmount(it.amount, `items[${i}].amount`),
      token: tokenOf(it.token, `items[${i}].token`),
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
