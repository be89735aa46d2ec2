/**
 * Transfer-desk commands (contract.md section 12), keyed by the desk's account. On the wire they share one
 * Avro record (`DeskStep`: kind, payment id, JSON payload with int64 kept exact), as subscription commands do.
 */
import type { DeskReceipt, DeskTerms } from './rules';

/**
 * The watcher saw a payment to the desk address on a confirmed solidified block. It carries everything the
 * decision reads: the terms in force, the receiver it resolved (the memo's address, else the sender) and
 * that receiver's activation as read from the chain, and the bandwidth fee a return would burn. The id
 * derives from the payment id (the txid for a TRX transfer), so a re-read appends the same command.
 */
export interface DeskPaymentCommand extends DeskReceipt {
  type: 'desk.payment';
  receiverActive: boolean;
  confirmationsRequired: number;
  terms: DeskTerms;
  /** RETURN_BANDWIDTH_BYTES x the chain's bandwidth fee when the payment was seen. */
  returnFeeSun: bigint;
  supplier: 'pool' | 'provider';
}

/**
 * `owed` (a follow-up of the order's settlement, domain/desk/follow-ups.ts): what an accepted payment's
 * order did not deliver (all of it when the order failed, the pro-rata refund of a partial delivery) is
 * owed back like a refused payment. Then the desk returner: `signed` stores the return
 * before broadcast (the first stored wins; a re-signing only while `replaces` is still the stored one,
 * which can no longer land), `landed` records it in a block.
 */
export interface DeskReturnCommand {
  type: 'desk.return';
  paymentId: string;
  step: 'owed' | 'signed' | 'landed';
  txId: string;
  signedTx: string | null;
  replaces: string | null;
  at: number;
  /** `owed`: the SUN the order did not use (0 for the other steps). */
  amountSun: bigint;
}

export type DeskCommand = DeskPaymentCommand | DeskReturnCommand;
