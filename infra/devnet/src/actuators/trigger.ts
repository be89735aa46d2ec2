import { StateView } from '../state/accounts';
import { PARAMS } from '../state/params';
import { energyFactor, energyPenalty } from '../state/energy-factor';
import { energyUsed, resourceLimit } from '../state/resources';
import type { Contract } from '../tx/contracts';
import { newAccount } from '../state/accounts';
import type { CallFrame, CallResult, NativeContract } from '../contracts/contract';
import type { ExecContext, ExecOutcome } from './context';
import { invalid } from './refusal';

type Trigger = Extract<Contract, { type: 'TriggerSmartContract' }>;

/** A call's result with its energy raised by the contract's dynamic energy penalty (part of `energy`). */
export interface PricedCall extends CallResult {
  readonly penalty: bigint;
}

/** Runs a call on a throw-away child of `view`: for constant calls and estimates. */
export function dryRun(ctx: ExecContext, c: Trigger): PricedCall | undefined {
  const contract = ctx.contracts.get(c.contract);
  if (!contract) return undefined;
  return withPenalty(ctx.view, c, run(new StateView(ctx.view.layer.child()), ctx, contract, c, frameOf(ctx), '00'.repeat(32)));
}

function withPenalty(view: StateView, c: Trigger, result: CallResult): PricedCall {
  const penalty = energyPenalty(result.energy, energyFactor(view, c.contract));
  return { ...result, energy: result.energy + penalty, penalty };
}

const NOT_RUN: CallResult = { ok: false, returnData: Buffer.alloc(0), energy: 0n, logs: [] };

/** The call itself: TRX to a function that is not payable reverts before anything runs. */
function run(view: StateView, ctx: ExecContext, contract: NativeContract, c: Trigger, frame: CallFrame, txid: string): CallResult {
  if (c.callValue > 0n && (!contract.acceptsValue(c.data) || !moveCallValue(view, c, ctx.nowMs))) return NOT_RUN;
  return contract.call(view, c.owner, c.data, c.callValue, frame, txid);
}

function frameOf(ctx: ExecContext): CallFrame {
  return { contracts: ctx.contracts, internals: [], nonce: 0, nowMs: ctx.nowMs };
}

/** VMActuator moves call_value from the caller to the contract before the code runs. */
function moveCallValue(view: StateView, c: Trigger, nowMs: number): boolean {
  const caller = view.account(c.owner);
  if (!caller || caller.balance < c.callValue) return false;
  view.putAccount({ ...caller, balance: caller.balance - c.callValue });
  // Contract accounts made by an older genesis may be missing: created as the TVM would.
  const target = view.account(c.contract) ?? newAccount(c.contract, nowMs, true);
  view.putAccount({ ...target, balance: target.balance + c.callValue });
  return true;
}

/**
 * VMActuator for the native contracts: energy comes from the caller's staked energy first, then
 * from TRX burned at getEnergyFee, never beyond fee_limit. A revert keeps the fees but no state
 * change; running out of energy burns everything the limit allowed.
 */
export function triggerContract(ctx: ExecContext, c: Trigger, feeLimit: bigint, txid: string, out: ExecOutcome): void {
  const { view } = ctx;
  const contract = ctx.contracts.get(c.contract);
  if (!contract) throw invalid('No contract or not a valid smart contract');
  if (feeLimit < 0n || feeLimit > PARAMS.maxFeeLimit) throw invalid(`feeLimit must be >= 0 and <= ${PARAMS.maxFeeLimit}`);
  const caller = view.account(c.owner);
  if (!caller) throw invalid('Validate TriggerSmartContract error, no OwnerAccount.');
  if (c.callValue > caller.balance) throw invalid('Validate InternalTransfer error, balance is not sufficient.');

  const used = energyUsed(caller, ctx.slot);
  const frozenLeft = maxZero(resourceLimit(view, caller, 'ENERGY') - used);
  const limit = min(frozenLeft + (caller.balance - c.callValue) / PARAMS.energyFee, feeLimit / PARAMS.energyFee);

  const scratch = view.layer.child();
  const frame = frameOf(ctx);
  const result = withPenalty(view, c, run(new StateView(scratch), ctx, contract, c, frame, txid));

  let spent: bigint;
  if (result.energy > limit) {
    out.contractRet = 'OUT_OF_ENERGY';
    out.resMessage = 'Not enough energy for \'SSTORE\' operation executing';
    spent = limit;
  } else if (!result.ok) {
    out.contractRet = 'REVERT';
    out.resMessage = 'REVERT opcode executed';
    // java-tron keeps a revert's return data (the Error(string) reason) in contractResult.
    out.contractResult = result.returnData.toString('hex');
    spent = result.energy;
  } else {
    scratch.mergeIntoParent();
    out.logs = result.logs;
    out.contractResult = result.returnData.toString('hex');
    spent = result.energy;
  }

  // java-tron keeps the internal transactions of a failed call, every one marked rejected; logs go.
  if (out.contractRet !== 'SUCCESS') for (const it of frame.internals) it.rejected = true;
  out.internalTxs = frame.internals;

  const fromFrozen = min(spent, frozenLeft);
  const burned = (spent - fromFrozen) * PARAMS.energyFee;
  const after = view.account(c.owner) ?? caller;
  view.putAccount({
    ...after,
    balance: after.balance - burned,
    energyUsage: used + fromFrozen,
    latestConsumeSlotForEnergy: ctx.slot,
    latestOperationTime: ctx.nowMs,
  });
  out.energyUsage = fromFrozen;
  out.energyFee = burned;
  out.energyUsageTotal = spent;
  // Out of energy, the penalty is the part of what was burned that the factor added.
  out.energyPenaltyTotal = spent === result.energy ? result.penalty : min(result.penalty, spent);
  out.fee += burned;
  out.contractAddress = c.contract;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const maxZero = (a: bigint) => (a > 0n ? a : 0n);
