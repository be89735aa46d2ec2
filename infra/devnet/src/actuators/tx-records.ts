/** What a transaction's execution records besides its outcome: its logs and its internal transactions. */
import type { HexAddress } from '../crypto/address';

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
