import type { ContractRegistry } from '../contracts/registry';
import type { HexAddress } from '../crypto/address';
import type { StateView } from '../state/accounts';

/** What an actuator sees: the state to validate against and write to, and the head block's clock. */
export interface ExecContext {
  readonly view: StateView;
  /** Head block timestamp (ms): java-tron validates and times locks against it. */
  readonly nowMs: number;
  /** Head slot (3 s units since genesis) for resource usage. */
  readonly slot: number;
  readonly contracts: ContractRegistry;
}

/** TransactionInfo.Log: address and topics as 20/32-byte hex without the 41 prefix. */
export interface TxLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/**
 * TransactionInfo.internal_transactions entry (protocol.InternalTransaction) for a message call a
 * contract made: TRX only here, so callValueInfo holds one entry with the value.
 */
export interface InternalTx {
  /** 32-byte hex (InternalTransaction.getHash). */
  readonly hash: string;
  readonly caller: HexAddress;
  readonly to: HexAddress;
  /** SUN. */
  readonly value: bigint;
  readonly note: 'call';
  /** The call, or one it ran in, failed: nothing it did stayed. */
  rejected: boolean;
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
