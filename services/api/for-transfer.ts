/**
 * `for_transfer` on POST /v1/orders (contract.md section 11): the chain facts the processor sizes the order
 * from. The API simulates the transfer with the receiver as its sender and reads the sender's free energy
 * (services/chain/transfer-facts.ts); it does not decide the amount, the processor does from these facts.
 */
import { ChainUnavailable } from '../chain/errors';
import type { ChainReader } from '../chain/reads';
import { NoSuchContract, readForTransfer, transferFactsFor, type ForTransferRead } from '../chain/transfer-facts';
import { priceFor, type PriceRow, type PriceTable, type Tier } from '../domain/pricing';
import type { Config } from '../platform/config';
import { ApiError } from './errors';
import { transferRefOf } from './transfer-input';

export interface OrderForTransfer extends ForTransferRead {
  row: PriceRow;
}

export async function orderForTransfer(
  cfg: Pick<Config, 'USDT_CONTRACT'>, chain: Pick<ChainReader, 'call'>, table: PriceTable, maxOrderEnergy: number,
  body: { resource: string; amount?: unknown; tier?: Tier; receiver: string; for_transfer: { to: string; amount: unknown; token?: unknown } },
): Promise<OrderForTransfer> {
  if (body.resource !== 'energy') throw new ApiError('invalid_request', '`for_transfer` orders energy: `resource` must be `energy`.', { field: 'resource' });
  if (body.amount !== undefined) throw new ApiError('invalid_request', 'Give `amount` or `for_transfer`, not both.', { field: 'amount' });
  if (body.tier === undefined) throw new ApiError('invalid_request', 'Missing required field `tier`.', { field: 'tier' });
  const transfer = transferRefOf(cfg, body.for_transfer, 'for_transfer');
  const probe = table.rows.find((r) => r.resource === 'energy' && r.tier === body.tier);
  const check = priceFor(table, 'energy', body.tier, probe?.min_amount ?? 1, maxOrderEnergy);
  if (!check.ok) throw new ApiError(check.slug, check.message, check.details ?? null);
  const row = check.row;
  let read: ForTransferRead;
  try {
    read = await readForTransfer(transferFactsFor(chain), { from: body.receiver, to: transfer.to, amount: BigInt(transfer.amount), token: transfer.token }, {
      minAmount: row.min_amount, maxAmount: Math.min(row.max_amount, maxOrderEnergy),
    });
  } catch (err) {
    if (err instanceof NoSuchContract) throw new ApiError('invalid_request', '`for_transfer.token` is not a contract on this network.', { field: 'for_transfer.token' });
    if (err instanceof ChainUnavailable) throw new ApiError('chain_unavailable', 'The node cannot simulate the transfer now.');
    throw err;
  }
  if (read.failure !== null) throw new ApiError('invalid_request', `The transfer would fail: ${read.failure}; renting energy does not help.`, { field: 'for_transfer' });
  return { ...read, row };
}
