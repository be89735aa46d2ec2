/**
 * The deposit watcher's desk part (contract.md section 12): a receipt of the desk address on a confirmed
 * solidified block becomes one `desk.payment` command on the desk account's partition, with the facts
 * its decision reads: the terms in force, the receiver (the memo's address when it is one, else the
 * sender), that receiver's activation read from the chain now, and the bandwidth fee a return would burn.
 * The command id derives from the receipt id (the txid for a TRX transfer): a re-read or a restart
 * appends the same command, which the processor applies once.
 */
import type { Command } from '../domain/commands';
import { deskAccountId, RETURN_BANDWIDTH_BYTES, type DeskTerms } from '../domain/desk/rules';
import { derivedId } from '../domain/ids';
import { isTronAddress } from '../chain/address';
import type { ChainReader } from '../chain/reads';
import type { Clock } from '../platform/clock';
import { deskTermsOf, type Config } from '../platform/config';
import type { Receipt } from '../deposits/receipts';

/** Characters of a memo kept on the payment (a memo may be kilobytes; support needs its start). */
const MEMO_KEPT = 256;

/** The memo as a receiver: a Base58 address alone on it (whitespace around it allowed), else none. */
export function memoReceiver(memo: string | null): string | null {
  const text = memo?.trim() ?? '';
  return isTronAddress(text) ? text : null;
}

export class DeskPayments {
  readonly address: string | null;
  private readonly terms: DeskTerms;

  constructor(private readonly cfg: Config, private readonly reader: Pick<ChainReader, 'account' | 'call'>, private readonly clock: Clock) {
    this.address = cfg.DESK_ADDRESS ?? null;
    this.terms = deskTermsOf(cfg);
  }

  mine(receipts: Receipt[]): Receipt[] {
    return this.address === null ? [] : receipts.filter((r) => r.address === this.address);
  }

  async commands(receipts: Receipt[], confirmationsRequired: number): Promise<Command[]> {
    if (receipts.length === 0) return [];
    const returnFeeSun = RETURN_BANDWIDTH_BYTES * (await this.bandwidthFeeSun());
    const accountId = deskAccountId(this.cfg.NETWORK, this.cfg.BRAND);
    const out: Command[] = [];
    for (const r of receipts) {
      const receiver = r.kind === 'transfer' ? memoReceiver(r.memo) ?? r.sender : null;
      const receiverActive = receiver === null ? false : receiver === r.sender || (await this.reader.account(receiver, 'full')).exists;
      out.push({
        type: 'desk.payment', commandId: derivedId('command', 'desk', r.depositId), accountId, issuedAt: this.clock.now(), deadlineAt: null, replyTo: null,
        paymentId: r.depositId, txid: r.txid, logIndex: r.logIndex, asset: r.asset, kind: r.kind, sender: r.sender, amount: r.amount, memo: r.memo?.slice(0, MEMO_KEPT) ?? null,
        receiver, receiverActive, blockNumber: r.blockNumber, blockTimestamp: r.blockTimestamp, confirmationsRequired, terms: this.terms,
        returnFeeSun, supplier: this.cfg.ORDER_SUPPLIER,
      });
    }
    return out;
  }

  /** java-tron's `getTransactionFee` chain parameter: SUN per bandwidth byte burned. */
  private async bandwidthFeeSun(): Promise<bigint> {
    const raw = await this.reader.call('full', 'getchainparameters');
    const value = (raw.chainParameter ?? []).find((p: { key: string }) => p.key === 'getTransactionFee')?.value;
    return BigInt(value ?? 0);
  }
}
