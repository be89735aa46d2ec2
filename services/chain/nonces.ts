/**
 * Per-transaction nonces from the database sequence `chain_tx_nonce`: unique across every process that
 * signs. Fetched in blocks so a pass of a few hundred signatures costs one round trip.
 */
import type { Pool } from '../platform/db/pool';

export interface NonceSource {
  next(): Promise<bigint>;
}

export class SequenceNonces implements NonceSource {
  private block: bigint[] = [];

  constructor(private readonly pool: Pool, private readonly blockSize = 256) {}

  async next(): Promise<bigint> {
    if (this.block.length === 0) {
      const { rows } = await this.pool.query("SELECT nextval('chain_tx_nonce') AS n FROM generate_series(1, $1)", [this.blockSize]);
      this.block = rows.map((r: { n: bigint }) => BigInt(r.n));
    }
    return this.block.shift() as bigint;
  }
}
