import { newAccount } from '../state/accounts';
import { PARAMS } from '../state/params';
import type { Contract } from '../tx/contracts';
import type { ExecContext, ExecOutcome } from './context';
import { invalid } from './refusal';

type Transfer = Extract<Contract, { type: 'TransferContract' }>;

/** TransferActuator: moves TRX; a receiver that does not exist yet is created for a burned fee. */
export function transferTrx(ctx: ExecContext, c: Transfer, out: ExecOutcome): void {
  if (c.to === c.owner) throw invalid('Cannot transfer TRX to yourself.');
  const owner = ctx.view.account(c.owner);
  if (!owner) throw invalid('Validate TransferContract error, no OwnerAccount.');
  if (c.amount <= 0n) throw invalid('Amount must be greater than 0.');
  const receiver = ctx.view.account(c.to);
  const fee = receiver ? 0n : PARAMS.createNewAccountFeeInSystemContract;
  if (owner.balance < c.amount + fee) throw invalid('Validate TransferContract error, balance is not sufficient.');
  if (receiver?.isContract) throw invalid('Cannot transfer TRX to a smart contract.');

  ctx.view.putAccount({ ...owner, balance: owner.balance - c.amount - fee, latestOperationTime: ctx.nowMs });
  const to = receiver ?? newAccount(c.to, ctx.nowMs);
  ctx.view.putAccount({ ...to, balance: to.balance + c.amount });
  out.fee += fee;
}

/** Whether the transaction creates an account (it then pays bandwidth differently). */
export function createsAccount(ctx: ExecContext, c: Contract): boolean {
  const transfer = c.type === 'TransferContract' || c.type === 'TransferAssetContract';
  return transfer && c.to !== c.owner && c.amount > 0n && ctx.view.account(c.to) === undefined;
}
