/**
 * Avro `long` as JavaScript bigint. avsc's default maps longs to numbers and loses precision past 2^53,
 * which money cannot afford; this is avsc's documented way of swapping the representation.
 *
 * That way costs an 8-byte Buffer per long written (and read) and a bigint-to-bytes round trip: with a dozen
 * longs per command it was a visible share of an API process's busy time (bench/README.md, "Figures formerly quoted in code comments").
 * Values within ±2^52
 * (every time in ms, nearly every amount) take avsc's own number varint instead, which is exact there and
 * writes the same bytes; anything larger goes the Buffer way as before. test/unit/avro-long.test.ts holds
 * both ways to the same bytes and values.
 */
import avro from 'avsc';

const bufferLongType = avro.types.LongType.__with({
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

/**
 * avsc's number varint is exact while the zigzag value stays below 2^53: |n| < 2^52 on the way out, and on
 * the way in a varint of at most 7 bytes (49 bits).
 */
const FAST_LIMIT = 2n ** 52n;
const FAST_READ_BYTES = 7;

interface Tap {
  buf: Buffer;
  pos: number;
  readLong(): number;
  writeLong(n: number): void;
}
type Internal = { _write(tap: Tap, val: unknown): void; _read(tap: Tap): unknown };
const slow = bufferLongType as unknown as Internal;

/** bufferLongType with the number fast path (the frozen type is its prototype: every other method is its own). */
export const bigintLongType: typeof bufferLongType = Object.create(bufferLongType, {
  _write: {
    value(tap: Tap, val: unknown): void {
      if (typeof val === 'bigint' && val < FAST_LIMIT && val > -FAST_LIMIT) tap.writeLong(Number(val));
      else slow._write(tap, val);
    },
  },
  _read: {
    value(tap: Tap): unknown {
      const { buf } = tap;
      const end = Math.min(tap.pos + FAST_READ_BYTES, buf.length);
      let p = tap.pos;
      while (p < end && buf[p] & 0x80) p++;
      // The varint ends within the fast bytes and within the buffer: exact as a number.
      if (p < end) return BigInt(tap.readLong());
      return slow._read(tap);
    },
  },
});

/** The Buffer-only type (tests compare the fast path with it). */
export const bufferBigintLongType = bufferLongType;

/** avsc type hook: every `long` (logical or not) decodes to and encodes from bigint. */
export function bigintLongHook(schema: unknown): typeof bigintLongType | undefined {
  if (schema === 'long') return bigintLongType;
  if (schema && typeof schema === 'object' && (schema as { type?: unknown }).type === 'long') return bigintLongType;
  return undefined;
}
