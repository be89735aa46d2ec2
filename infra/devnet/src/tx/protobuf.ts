/**
 * The few protobuf wire rules the transaction raw data needs (proto3: fields written in
 * field-number order, default values left out), so that the bytes — and therefore the
 * txid — are the ones java-tron and TronWeb compute for the same JSON.
 */
export class PbWriter {
  private readonly parts: Buffer[] = [];

  private tag(field: number, wireType: number): void {
    this.rawVarint(BigInt((field << 3) | wireType));
  }

  private rawVarint(value: bigint): void {
    // Negative int64s are written as their 64-bit two's complement (10 bytes), like protobuf.
    let v = BigInt.asUintN(64, value);
    const bytes: number[] = [];
    while (v >= 0x80n) {
      bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    bytes.push(Number(v));
    this.parts.push(Buffer.from(bytes));
  }

  varint(field: number, value: bigint | number | boolean): this {
    const v = typeof value === 'boolean' ? (value ? 1n : 0n) : BigInt(value);
    if (v !== 0n) {
      this.tag(field, 0);
      this.rawVarint(v);
    }
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    if (value.length > 0) {
      this.tag(field, 2);
      this.rawVarint(BigInt(value.length));
      this.parts.push(Buffer.from(value));
    }
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Size of a length-delimited field carrying `length` bytes (tag of one byte). */
export function delimitedSize(length: number): number {
  let varintLen = 1;
  for (let v = length; v >= 0x80; v = Math.floor(v / 128)) varintLen++;
  return 1 + varintLen + length;
}
