/** The deposits table to and from the domain's Deposit, inside the processor's transaction. */
import type { Command } from '../domain/commands';
import type { Deposit } from '../domain/deposits';
import type { WriteGroup } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';

export const depositColumns = [
  'deposit_id', 'account_id', 'asset', 'address', 'sender', 'txid', 'log_index', 'block_number', 'block_timestamp', 'amount',
  'confirmations_required', 'status', 'journal_id', 'amount_sun', 'rate', 'rate_source', 'spread_bps', 'seen_at', 'credited_at',
] as const;

export function depositFromRow(r: Record<string, any>): Deposit {
  return {
    depositId: r.deposit_id, accountId: r.account_id, asset: r.asset, address: r.address, sender: r.sender, txid: r.txid,
    logIndex: r.log_index, blockNumber: Number(r.block_number), blockTimestamp: (r.block_timestamp as Date).getTime(),
    amount: BigInt(r.amount), confirmationsRequired: r.confirmations_required, status: r.status, journalId: r.journal_id,
    amountSun: BigInt(r.amount_sun), rate: r.rate === null ? null : BigInt(r.rate), rateSource: r.rate_source, spreadBps: r.spread_bps,
    seenAt: (r.seen_at as Date).getTime(), creditedAt: r.credited_at === null ? null : (r.credited_at as Date).getTime(),
  };
}

function depositToRow(d: Deposit): unknown[] {
  return [
    d.depositId, d.accountId, d.asset, d.address, d.sender, d.txid, d.logIndex, d.blockNumber, new Date(d.blockTimestamp), d.amount,
    d.confirmationsRequired, d.status, d.journalId, d.amountSun, d.rate, d.rateSource, d.spreadBps, new Date(d.seenAt),
    d.creditedAt === null ? null : new Date(d.creditedAt),
  ];
}

/** The deposit ids a batch's commands touch. */
export function depositIdsOf(commands: Command[]): string[] {
  const ids = new Set<string>();
  for (const c of commands) if (c.type === 'deposit.credit' || c.type === 'deposit.release') ids.add(c.depositId);
  return [...ids];
}

export async function loadDeposits(client: PoolClient, ids: string[]): Promise<Map<string, Deposit>> {
  if (ids.length === 0) return new Map();
  const { rows } = await client.query(`SELECT ${depositColumns.join(', ')} FROM deposits WHERE deposit_id = ANY($1::text[])`, [ids]);
  return new Map(rows.map((r) => [r.deposit_id as string, depositFromRow(r)]));
}

export function saveDeposits(writes: WriteGroup, deposits: Deposit[]): void {
  writes.upsertRows('deposits', depositColumns, deposits.map(depositToRow), { key: 'deposit_id' });
}
