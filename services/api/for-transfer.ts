/**
 * `for_transfer` on POST /v1/orders (contract.md section 11): the chain facts the processor sizes the order
 * from. The API simulates the transfer with the receiver as its sender and reads the sender's free energy
 * (services/chain/transfer-facts.ts); it does not decide the amount, the processor does from these facts.
 */
import { ChainUnavailable } from '../chain/errors';
import type { ChainReader } from '../chain/reads';
import { NoSuchContract, transferFactsFor } from '../chain/transfer-facts';
import type { ForTransferFacts } from '../domain/commands';
import { forTransferAmount } from '../domain/estimates';
import { priceFor, type PriceRow, type PriceTable, type Tier } from '../domain/pricing';
import type { Config } from '../platform/config';
import { ApiError } from './errors';
import { checkAddress } from './identity-deps';
import { tokenAmount, tokenContract } from './transfer-input';

export interface ForTransferRead {
  row: PriceRow;
  facts: ForTransferFacts;
  /** What the processor will size the order at from `facts` (for a quote's comparison and the routing fee). */
  amount: number;
  senderActive: boolean;
}

export async function readForTransfer(
  cfg: Pick<Config, 'USDT_CONTRACT'>, chain: Pick<ChainReader, 'call'>, table: PriceTable, maxOrderEnergy: number,
  body: { resource: string; amount?: unknown; tier?: Tier; receiver: string; for_transfer: { to: string; amount: unknown; token?: unknown } },
): Promise<ForTransferRead> {
  if (body.resource !== 'energy') throw new ApiError('invalid_request', '`for_transfer` orders energy: `resource` must be `energy`.', { field: 'resource' });
  if (body.amount !== undefined) throw new ApiError('invalid_request', 'Give `amount` or `for_transfer`, not both.', { field: 'amount' });
  if (body.tier === undefined) throw new ApiError('invalid_request', 'Missing required field `tier`.', { field: 'tier' });
  const to = checkAddress(body.for_transfer.to, 'for_transfer.to');
  const amount = tokenAmount(body.for_transfer.amount, 'for_transfer.amount');
  const token = tokenContract(cfg, body.for_transfer.token, 'for_transfer.token');
  const probe = table.rows.find((r) => r.resource === 'energy' && r.tier === body.tier);
  const check = priceFor(table, 'energy', body.tier, probe?.min_amount ?? 1, maxOrderEnergy);
  if (!check.ok) throw new ApiError(check.slug, check.message, check.details ?? null);
  const row = check.row;

  const reader = transferFactsFor(chain);
  let read;
  try {
    const head = await reader.head();
    [read] = await reader.facts(head.number, [{ from: body.receiver, to, amount, token }]);
  } catch (err) {
    if (err instanceof NoSuchContract) throw new ApiError('invalid_request', '`for_transfer.token` is not a contract on this network.', { field: 'for_transfer.token' });
    if (err instanceof ChainUnavailable) throw new ApiError('chain_unavailable', 'The node cannot simulate the transfer now.');
    throw err;
  }
  if (!read.simulation.ok) {
    throw new ApiError('invalid_request', `The transfer would fail: ${read.simulation.failure ?? 'it reverts'}; renting energy does not help.`, { field: 'for_transfer' });
  }
  const energyAvailable = read.sender.activated ? read.sender.energyLimit - read.sender.energyUsed : 0n;
  const facts: ForTransferFacts = {
    to, amount: amount.toString(), token, energyNeeded: Number(read.simulation.energyUsed), energyAvailable: Number(energyAvailable > 0n ? energyAvailable : 0n),
    minAmount: row.min_amount, maxAmount: Math.min(row.max_amount, maxOrderEnergy), routingFeeBps: 0,
  };
  return { row, facts, amount: forTransferAmount(facts), senderActive: read.sender.activated };
}
