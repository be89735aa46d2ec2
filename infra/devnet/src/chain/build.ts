import type { Contract } from '../tx/contracts';
import { encodeRawData, txidOf, type RawTx, type SignedTx } from '../tx/transaction';
import type { Chain } from './chain';

/** java-tron's default trx expiration: head block time + 60 s. */
const EXPIRATION_MS = 60_000;

/** An unsigned transaction referencing the head block, as java-tron's create endpoints make it. */
export function buildTx(chain: Chain, contract: Contract, extra: { permissionId?: number; feeLimit?: bigint } = {}): SignedTx {
  const head = chain.head();
  const refBlockBytes = Buffer.alloc(2);
  refBlockBytes.writeUInt16BE(head.number & 0xffff);
  const raw: RawTx = {
    contract,
    permissionId: extra.permissionId ?? 0,
    refBlockBytes,
    refBlockHash: Buffer.from(head.id.slice(16, 32), 'hex'),
    expiration: BigInt(head.timestamp + EXPIRATION_MS),
    timestamp: BigInt(Date.now()),
    feeLimit: extra.feeLimit ?? 0n,
    data: Buffer.alloc(0),
  };
  const rawBytes = encodeRawData(raw);
  return { raw, rawBytes, txid: txidOf(rawBytes), signatures: [] };
}
