/** The receipts of solidified blocks, their transaction infos read where needed (watcher and reconcile share it). */
import { tronAddressFromHex } from '../chain/address';
import { blockTxInfos, type TxInfoWithInternals } from '../chain/receipts';
import type { Block, ChainReader } from '../chain/reads';
import { needsInfos, receiptsOf, type Receipt } from './receipts';

const fromHex = tronAddressFromHex;

/** Info reads in flight at once: a block range has at most 100 blocks. */
const INFO_CONCURRENCY = 4;

export async function readReceipts(reader: ChainReader, blocks: Block[], usdt: string | null): Promise<Receipt[]> {
  const infos = new Map<number, Map<string, TxInfoWithInternals>>();
  const wanted = blocks.filter(needsInfos);
  for (let i = 0; i < wanted.length; i += INFO_CONCURRENCY) {
    const batch = wanted.slice(i, i + INFO_CONCURRENCY);
    const read = await Promise.all(batch.map((b) => blockTxInfos(reader, b.number, 'solid')));
    batch.forEach((b, j) => infos.set(b.number, read[j]));
  }
  return blocks.flatMap((b) => receiptsOf(b, infos.get(b.number) ?? new Map(), usdt, fromHex));
}
