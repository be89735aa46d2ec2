/**
 * "Who received the promo token from its drop", read from the chain through the adapter: TRC-10
 * transfers of the token whose sender is the token's issuer, in solidified blocks from
 * PROMO_DROP_FROM_BLOCK on. Kept per process and extended as the chain grows (one read at a time).
 */
import { MAX_BLOCK_RANGE } from '../chain/reads';
import type { Trc10Reader } from '../chain/trc10';

export class DropLog {
  private tokenId: string | null = null;
  private nextBlock: number;
  private readonly recipients = new Set<string>();
  private reading: Promise<void> | null = null;

  constructor(private readonly chain: Pick<Trc10Reader, 'solidHead' | 'transfers'>, private readonly fromBlock: number) {
    this.nextBlock = fromBlock;
  }

  /** Whether `address` received `tokenId` from `dropAddress`; throws ChainUnavailable (5003) when the chain cannot be read. */
  async received(tokenId: string, dropAddress: string, address: string): Promise<boolean> {
    const key = `${tokenId}:${dropAddress}`;
    if (this.tokenId !== key) {
      this.tokenId = key;
      this.nextBlock = this.fromBlock;
      this.recipients.clear();
    }
    if (this.recipients.has(address)) return true;
    this.reading ??= this.catchUp(tokenId, dropAddress).finally(() => (this.reading = null));
    await this.reading;
    return this.recipients.has(address);
  }

  private async catchUp(tokenId: string, dropAddress: string): Promise<void> {
    const head = await this.chain.solidHead();
    while (this.nextBlock <= head) {
      const end = Math.min(head + 1, this.nextBlock + MAX_BLOCK_RANGE);
      for (const t of await this.chain.transfers(this.nextBlock, end)) {
        if (t.tokenId === tokenId && t.from === dropAddress) this.recipients.add(t.to);
      }
      this.nextBlock = end;
    }
  }
}
