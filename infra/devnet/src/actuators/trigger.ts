import { StateView } from '../state/accounts';
import { PARAMS } from '../state/params';
import { energyUsed, resourceLimit } from '../state/resources';
import type { Contract } from '../tx/contracts';
import type { CallResult } from '../contracts/contract';
import type { ExecContext, ExecOutcome } from './context';
import { invalid } from './refusal';

type Trigger = Extract<Contract, { type: 'TriggerSmartContract' }>;

/** Runs a call on a throw-away child of `view`: for constant calls and estimates. */
export function dryRun(ctx: ExecContext, c: Trigger): CallResult | undefined {
  const contract = ctx.contracts.get(c.contract);
  if (!contract) return undefined;
  return contract.call(new StateView(ctx.view.layer.child()), c.owner, c.data);
}

/**
 * VMActuator for the native contracts: energy comes from the caller's staked energy first, then
 * from TRX burned at getEnergyFee, never beyond fee_limit. A revert keeps the fees but no state
 * change; running out of energy burns everything the limit allowed.
 */
export function triggerContract(ctx: ExecContext, c: Trigger, feeLimit: bigint, out: ExecOutcome): void {
  const { view } = ctx;
  const contract = ctx.contracts.get(c.contract);
  if (!contract) throw invalid('No contract or not a valid smart contract');
  if (feeLimit < 0n || feeLimit > PARAMS.maxFeeLimit) throw invalid(`feeLimit must be >= 0 and <= ${PARAMS.maxFeeLimit}`);
  const caller = view.account(c.owner);
  if (!caller) throw invalid('Validate TriggerSmartContract error, no OwnerAccount.');
  if (c.callValue > caller.balance) throw invalid('Validate InternalTransfer error, balance is not sufficient.');

  const used = energyUsed(caller, ctx.slot);
  const frozenLeft = maxZero(resourceLimit(view, caller, 'ENERGY') - used);
  const limit = min(frozenLeft + caller.balance / PARAMS.energyFee, feeLimit / PARAMS.energyFee);

  const scratch = view.layer.child();
  // Contracts here are not payable: a call carrying TRX reverts before doing anything.
  const result: CallResult = c.callValue > 0n ? { ok: false, returnData: Buffer.alloc(0), energy: 0n, logs: [] } : contract.call(new StateView(scratch), c.owner, c.data);

  let spent: bigint;
  if (result.energy > limit) {
    out.contractRet = 'OUT_OF_ENERGY';
    out.resMessage = 'Not enough energy for \'SSTORE\' operation executing';
    spent = limit;
  } else if (!result.ok) {
    out.contractRet = 'REVERT';
    out.resMessage = 'REVERT opcode executed';
    spent = result.energy;
  } else {
    scratch.mergeIntoParent();
    out.logs = result.logs;
    out.contractResult = result.returnData.toString('hex');
    spent = result.energy;
  }

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
  out.fee += burned;
  out.contractAddress = c.contract;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const maxZero = (a: bigint) => (a > 0n ? a : 0n);
