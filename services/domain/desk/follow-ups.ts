/**
 * A desk order that fails to deliver (no stake, no delegation landed), or delivers only part, leaves what
 * it did not use on the desk's balance: the customer paid for energy it did not get. Derived once for every
 * command that moves orders (apply.ts), as the order events are: such a settlement is followed by
 * `desk.return owed` with that amount, which goes back like a refused payment. A refused payment's own
 * order (3048) is born failed and owes nothing more.
 */
import type { Command } from '../commands';
import { derivedId } from '../ids';
import type { Order } from '../orders/rules';

export function deskFollowUps(command: Pick<Command, 'issuedAt'>, before: (orderId: string) => Order | undefined, changed: Order[]): Command[] {
  return changed.flatMap((after): Command[] => {
    const prior = before(after.id);
    if (after.source !== 'transfer' || !prior || prior.status === after.status) return [];
    const failed = after.status === 'failed' && after.failure?.slug !== 'transfer_not_accepted';
    const partial = after.status === 'confirmed' && after.refundedSun > 0n;
    if (!failed && !partial) return [];
    // A desk order's request hash is its payment's txid (desk/handlers.ts placeOrder), the payment's id.
    return [{
      type: 'desk.return', commandId: derivedId('command', 'desk-owed', after.id), accountId: after.accountId, issuedAt: command.issuedAt,
      deadlineAt: null, replyTo: null, paymentId: after.requestHash, step: 'owed', txId: '', signedTx: null, replaces: null, at: command.issuedAt,
      amountSun: failed ? after.totalSun : after.refundedSun,
    }];
  });
}
