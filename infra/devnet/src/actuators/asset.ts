/**
 * TRC-10 actuators, validated in the order and with the texts of java-tron's AssetIssueActuator and
 * TransferAssetActuator. The devnet runs with ALLOW_SAME_TOKEN_NAME on: assets are named by id.
 */
import { newAccount } from '../state/accounts';
import { asset, assetBalances, issuedAssetOf, nextTokenId, putAsset, putAssetBalance } from '../state/assets';
import { PARAMS } from '../state/params';
import type { AssetIssue, TransferAsset } from '../tx/asset-contracts';
import type { ExecContext, ExecOutcome } from './context';
import { invalid } from './refusal';

/** getAssetIssueFee on mainnet: 1024 TRX, burned. */
export const ASSET_ISSUE_FEE_SUN = 1_024_000_000n;
const MAX_PRECISION = 6n;

const validName = (b: Buffer) => b.length > 0 && b.length <= 32 && [...b].every((c) => c > 32 && c < 127);

export function issueAsset(ctx: ExecContext, c: AssetIssue, out: ExecOutcome): void {
  if (!validName(c.name)) throw invalid('Invalid assetName');
  if (c.name.toString('latin1').toLowerCase() === 'trx') throw invalid("assetName can't be trx");
  if (c.precision < 0n || c.precision > MAX_PRECISION) throw invalid('precision cannot exceed 6');
  if (c.abbr.length > 0 && !validName(c.abbr)) throw invalid('Invalid abbreviation for token');
  if (c.totalSupply <= 0n) throw invalid('TotalSupply must greater than 0!');
  if (c.trxNum <= 0n) throw invalid('TrxNum must greater than 0!');
  if (c.num <= 0n) throw invalid('Num must greater than 0!');
  if (c.startTime <= BigInt(ctx.nowMs)) throw invalid('Start time should be greater than HeadBlockTime');
  if (c.endTime <= c.startTime) throw invalid('End time should be greater than start time');
  const owner = ctx.view.account(c.owner);
  if (!owner) throw invalid('Account not exists');
  if (issuedAssetOf(ctx.view, c.owner) !== undefined) throw invalid('An account can only issue one asset');
  if (owner.balance < ASSET_ISSUE_FEE_SUN) throw invalid('No enough balance for fee!');

  const id = nextTokenId(ctx.view);
  putAsset(ctx.view, {
    id,
    owner: c.owner,
    name: c.name.toString('latin1'),
    abbr: c.abbr.toString('latin1'),
    totalSupply: c.totalSupply,
    trxNum: c.trxNum,
    precision: c.precision,
    num: c.num,
    startTime: c.startTime,
    endTime: c.endTime,
    description: c.description.toString('utf8'),
    url: c.url.toString('utf8'),
    freeAssetNetLimit: c.freeAssetNetLimit,
    publicFreeAssetNetLimit: c.publicFreeAssetNetLimit,
  });
  ctx.view.putAccount({ ...owner, balance: owner.balance - ASSET_ISSUE_FEE_SUN, latestOperationTime: ctx.nowMs });
  putAssetBalance(ctx.view, c.owner, id, c.totalSupply);
  out.fee += ASSET_ISSUE_FEE_SUN;
  out.assetIssueId = id;
}

export function transferAsset(ctx: ExecContext, c: TransferAsset, out: ExecOutcome): void {
  const id = c.assetName.toString('latin1');
  if (c.amount <= 0n) throw invalid('Amount must be greater than 0.');
  if (c.owner === c.to) throw invalid('Cannot transfer asset to yourself.');
  const owner = ctx.view.account(c.owner);
  if (!owner) throw invalid('No owner account!');
  if (!/^\d+$/.test(id) || !asset(ctx.view, id)) throw invalid('No asset!');
  const balance = assetBalances(ctx.view, c.owner)[id] ?? 0n;
  if (balance <= 0n) throw invalid('assetBalance must be greater than 0.');
  if (c.amount > balance) throw invalid('assetBalance is not sufficient.');
  const receiver = ctx.view.account(c.to);
  if (receiver?.isContract) throw invalid('Cannot transfer asset to smartContract.');
  const fee = receiver ? 0n : PARAMS.createNewAccountFeeInSystemContract;
  if (owner.balance < fee) throw invalid('Validate TransferAssetActuator error, insufficient fee.');

  ctx.view.putAccount({ ...owner, balance: owner.balance - fee, latestOperationTime: ctx.nowMs });
  if (!receiver) ctx.view.putAccount(newAccount(c.to, ctx.nowMs));
  putAssetBalance(ctx.view, c.owner, id, balance - c.amount);
  putAssetBalance(ctx.view, c.to, id, (assetBalances(ctx.view, c.to)[id] ?? 0n) + c.amount);
  out.fee += fee;
}
