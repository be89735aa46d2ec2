import type { Account } from '../state/accounts';
import { PARAMS, TRX } from '../state/params';
import { ownWeight } from '../state/resources';
import type { Contract, Resource } from '../tx/contracts';
import type { ExecContext, ExecOutcome } from './context';
import { invalid } from './refusal';

type Freeze = Extract<Contract, { type: 'FreezeBalanceV2Contract' }>;
type Unfreeze = Extract<Contract, { type: 'UnfreezeBalanceV2Contract' }>;
type Withdraw = Extract<Contract, { type: 'WithdrawExpireUnfreezeContract' }>;

const UNFREEZE_MAX_TIMES = 32;
const DAY_MS = 86_400_000;

/** Writes an account whose own stake changed and moves the total weight by the whole-TRX difference. */
export function putWithWeight(ctx: ExecContext, before: Account, after: Account, resource: Resource): void {
  ctx.view.addWeight(resource, ownWeight(after, resource) - ownWeight(before, resource));
  ctx.view.putAccount(after);
}

function withFrozen(account: Account, resource: Resource, delta: bigint): Account {
  return resource === 'ENERGY' ? { ...account, frozenEnergy: account.frozenEnergy + delta } : { ...account, frozenBandwidth: account.frozenBandwidth + delta };
}

/** FreezeBalanceV2Actuator. */
export function freezeV2(ctx: ExecContext, c: Freeze): void {
  const account = ctx.view.account(c.owner);
  if (!account) throw invalid(`Account[${c.owner}] not exists`);
  if (c.amount <= 0n) throw invalid('frozenBalance must be positive');
  if (c.amount < TRX) throw invalid('frozenBalance must be greater than or equal to 1 TRX');
  if (c.amount > account.balance) throw invalid('frozenBalance must be less than or equal to accountBalance');
  const after = withFrozen({ ...account, balance: account.balance - c.amount, latestOperationTime: ctx.nowMs }, c.resource, c.amount);
  putWithWeight(ctx, account, after, c.resource);
}

function splitExpired(account: Account, nowMs: number): { expired: bigint; left: Account['unfrozen'] } {
  let expired = 0n;
  const left = account.unfrozen.filter((u) => {
    if (u.expireTime > nowMs) return true;
    expired += u.amount;
    return false;
  });
  return { expired, left };
}

/** UnfreezeBalanceV2Actuator: the stake becomes withdrawable after getUnfreezeDelayDays. */
export function unfreezeV2(ctx: ExecContext, c: Unfreeze, out: ExecOutcome): void {
  const account = ctx.view.account(c.owner);
  if (!account) throw invalid(`Account[${c.owner}] does not exist`);
  const frozen = c.resource === 'ENERGY' ? account.frozenEnergy : account.frozenBandwidth;
  if (frozen <= 0n) throw invalid(c.resource === 'ENERGY' ? 'no frozenBalance(Energy)' : 'no frozenBalance(BANDWIDTH)');
  if (c.amount <= 0n || c.amount > frozen) throw invalid(`Invalid unfreeze_balance, [${c.amount}] is invalid`);
  const { expired, left } = splitExpired(account, ctx.nowMs);
  if (left.length >= UNFREEZE_MAX_TIMES) throw invalid('Invalid unfreeze operation, unfreezing times is over limit');

  const unfrozen = [...left, { resource: c.resource, amount: c.amount, expireTime: ctx.nowMs + Number(PARAMS.unfreezeDelayDays) * DAY_MS }];
  const after = withFrozen({ ...account, balance: account.balance + expired, unfrozen, latestOperationTime: ctx.nowMs }, c.resource, -c.amount);
  putWithWeight(ctx, account, after, c.resource);
  out.unfreezeAmount = c.amount;
  if (expired) out.withdrawExpireAmount = expired;
}

/** WithdrawExpireUnfreezeActuator: returns unstaked TRX whose waiting period is over. */
export function withdrawExpireUnfreeze(ctx: ExecContext, c: Withdraw, out: ExecOutcome): void {
  const account = ctx.view.account(c.owner);
  if (!account) throw invalid(`Account[${c.owner}] not exists`);
  const { expired, left } = splitExpired(account, ctx.nowMs);
  if (expired === 0n) throw invalid('no unFreeze balance to withdraw ');
  ctx.view.putAccount({ ...account, balance: account.balance + expired, unfrozen: left, latestOperationTime: ctx.nowMs });
  out.withdrawExpireAmount = expired;
}
