import type { ContractRegistry } from '../contracts/registry';
import type { HexAddress } from '../crypto/address';
import type { StateView } from '../state/accounts';
import type { InternalTx, TxLog } from './tx-records';


/** What an actuator sees: the state to validate against and write to, and the head block's clock. */
export interface ExecContext {
  readonly view: StateView;
  /** Head block timestamp (ms): java-tron validates and times locks against it. */
  readonly nowMs: number;
  /** Head slot (3 s units since genesis) for resource usage. */
  readonly slot: number;
  readonly contracts: ContractRegistry;
}

export type ContractRet = 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY';

/** The execution outcome that becomes the transaction's ret and TransactionInfo. */
export interface ExecOutcome {
  fee: bigint;
  contractRet: ContractRet;
  netUsage: bigint;
  netFee: bigint;
  energyUsage: bigint;
  energyFee: bigint;
  energyUsageTotal: bigint;
  /** receipt.energy_penalty_total: the dynamic energy part of energyUsageTotal (absent in older stored blocks). */
  energyPenaltyTotal?: bigint;
  contractResult: string;
  contractAddress?: string;
  logs: TxLog[];
  internalTxs: InternalTx[];
  resMessage?: string;
  withdrawExpireAmount?: bigint;
  unfreezeAmount?: bigint;
  /** TransactionInfo.assetIssueID of an AssetIssueContract. */
  assetIssueId?: string;
}

export function emptyOutcome(): ExecOutcome {
  return { fee: 0n, contractRet: 'SUCCESS', netUsage: 0n, netFee: 0n, energyUsage: 0n, energyFee: 0n, energyUsageTotal: 0n, contractResult: '', logs: [], internalTxs: [] };
}
