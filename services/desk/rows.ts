/** desk_payments rows to and from DeskPayment: the one mapping the processor's store and the desk's reads share. */
import type { DeskPayment } from '../domain/desk/rules';

const date = (n: number | null) => (n === null ? null : new Date(n));
const ms = (d: Date | null) => (d === null ? null : d.getTime());

export const deskPaymentColumns = [
  'payment_id', 'txid', 'log_index', 'asset', 'kind', 'sender', 'amount', 'memo', 'receiver', 'block_number', 'block_timestamp', 'status',
  'order_id', 'refusal', 'refund_sun', 'return_fee_sun', 'return_txid', 'return_signed_tx', 'returned_at', 'created_at', 'updated_at',
] as const;

export function deskPaymentToRow(p: DeskPayment): unknown[] {
  return [
    p.paymentId, p.txid, p.logIndex, p.asset, p.kind, p.sender, p.amount.toString(), p.memo, p.receiver, p.blockNumber, new Date(p.blockTimestamp),
    p.status, p.orderId, p.refusal, p.refundSun.toString(), p.returnFeeSun.toString(), p.returnTxId, p.returnSignedTx, date(p.returnedAt), new Date(p.createdAt), new Date(p.updatedAt),
  ];
}

export function deskPaymentFromRow(r: any): DeskPayment {
  return {
    paymentId: r.payment_id, txid: r.txid, logIndex: Number(r.log_index), asset: r.asset, kind: r.kind, sender: r.sender, amount: BigInt(r.amount),
    memo: r.memo, receiver: r.receiver, blockNumber: Number(r.block_number), blockTimestamp: r.block_timestamp.getTime(), status: r.status,
    orderId: r.order_id, refusal: r.refusal, refundSun: BigInt(r.refund_sun), returnFeeSun: BigInt(r.return_fee_sun), returnTxId: r.return_txid, returnSignedTx: r.return_signed_tx,
    returnedAt: ms(r.returned_at), createdAt: r.created_at.getTime(), updatedAt: r.updated_at.getTime(),
  };
}

/** The row as ops and support read it (no signed bytes). */
export function deskPaymentJson(p: DeskPayment): Record<string, unknown> {
  return {
    payment_id: p.paymentId, txid: p.txid, asset: p.asset, kind: p.kind, sender: p.sender, amount: p.amount, memo: p.memo, receiver: p.receiver,
    block_number: p.blockNumber, status: p.status, order_id: p.orderId, refusal: p.refusal, refund_sun: p.refundSun, return_txid: p.returnTxId,
    returned_at: p.returnedAt === null ? null : new Date(p.returnedAt).toISOString(), created_at: new Date(p.createdAt).toISOString(),
  };
}
