/**
 * The few protobuf wire rules the transaction raw data needs (proto3: fields written in
 * field-number order, default values left out), so that the bytes — and therefore the
 * txid — are the ones java-tron and TronWeb compute for the same JSON.
 */
export class PbWriter {
  private readonly out: number[] = [];

  private tag(field: number, wireType: number): void {
    this.rawVarint((field << 3) | wireType);
  }

  private rawVarint(value: bigint | number): void {
    if (typeof value === 'number' && value >= 0 && value <= Number.MAX_SAFE_INTEGER) {
      // Fast path for the common case: no BigInt arithmetic.
      let v = value;
      while (v >= 0x80) {
        this.out.push((v % 0x80) | 0x80);
        v = Math.floor(v / 0x80);
      }
      this.out.push(v);
      return;
    }
    // Negative int64s are written as their 64-bit two's complement (10 bytes), like protobuf.
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.out.push(Number(v));
  }

  varint(field: number, value: bigint | number | boolean): this {
    const v = typeof value === 'boolean' ? Number(value) : typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
    if (v !== 0 && v !== 0n) {
      this.tag(field, 0);
      this.rawVarint(v);
    }
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    if (value.length > 0) {
      this.tag(field, 2);
      this.rawVarint(value.length);
      for (let i = 0; i < value.length; i++) this.out.push(value[i]);
    }
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  finish(): Buffer {
    return Buffer.from(this.out);
  }
}

/** Size of a length-delimited field carrying `length` bytes (tag of one byte). */
export function delimitedSize(length: number): number {
  let varintLen = 1;
  for (let v = length; v >= 0x80; v = Math.floor(v / 128)) varintLen++;
  return 1 + varintLen + length;
}
