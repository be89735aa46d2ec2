/**
 * Avro `long` as JavaScript bigint. avsc's default maps longs to numbers and loses precision past 2^53,
 * which money cannot afford; this is avsc's documented way of swapping the representation.
 */
import avro from 'avsc';

export const bigintLongType = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(n);
    return buf;
  },
  fromJSON: (v: unknown) => BigInt(v as string),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

/** avsc type hook: every `long` (logical or not) decodes to and encodes from bigint. */
export function bigintLongHook(schema: unknown): typeof bigintLongType | undefined {
  if (schema === 'long') return bigintLongType;
  if (schema && typeof schema === 'object' && (schema as { type?: unknown }).type === 'long') return bigintLongType;
  return undefined;
}
