import { toBase58, type HexAddress } from '../crypto/address';
import type { Account } from '../state/accounts';
import { PARAMS } from '../state/params';
import { freeNetUsed, netUsed, resourceLimit } from '../state/resources';
import type { ExecContext, ExecOutcome } from './context';
import { invalid, noResource } from './refusal';

/**
 * Pays for a transaction's bytes the way java-tron's BandwidthProcessor does: staked bandwidth
 * first, then the daily free bandwidth, then burned TRX at getTransactionFee per byte. Creating an
 * account can only use staked bandwidth, else it burns getCreateAccountFee.
 */
export function chargeBandwidth(ctx: ExecContext, owner: HexAddress, bytes: number, createsAccount: boolean, out: ExecOutcome): void {
  const account = ctx.view.account(owner);
  if (!account) throw invalid(`account [${toBase58(owner)}] does not exist`);
  const cost = BigInt(bytes);
  const stakedUsed = netUsed(account, ctx.slot);
  const stakedLeft = resourceLimit(ctx.view, account, 'BANDWIDTH') - stakedUsed;

  if (createsAccount) {
    const needed = cost * PARAMS.createNewAccountBandwidthRate;
    if (stakedLeft >= needed) return useStaked(ctx, account, stakedUsed + needed, cost, out);
    return burn(ctx, account, PARAMS.createAccountFee, out);
  }
  if (stakedLeft >= cost) return useStaked(ctx, account, stakedUsed + cost, cost, out);
  const freeUsed = freeNetUsed(account, ctx.slot);
  if (PARAMS.freeNetLimit - freeUsed >= cost) {
    ctx.view.putAccount({ ...account, freeNetUsage: freeUsed + cost, latestConsumeFreeSlot: ctx.slot, latestOperationTime: ctx.nowMs });
    out.netUsage = cost;
    return;
  }
  return burn(ctx, account, cost * PARAMS.transactionFee, out);
}

function useStaked(ctx: ExecContext, account: Account, usage: bigint, cost: bigint, out: ExecOutcome): void {
  ctx.view.putAccount({ ...account, netUsage: usage, latestConsumeSlot: ctx.slot, latestOperationTime: ctx.nowMs });
  out.netUsage = cost;
}

function burn(ctx: ExecContext, account: Account, fee: bigint, out: ExecOutcome): void {
  if (account.balance < fee) throw noResource('Account resource insufficient error.');
  ctx.view.putAccount({ ...account, balance: account.balance - fee, latestOperationTime: ctx.nowMs });
  out.netFee = fee;
  out.fee += fee;
}
