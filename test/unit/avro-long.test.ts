import avro from 'avsc';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bigintLongHook, bigintLongType, bufferBigintLongType } from '../../services/platform/wire/avro-long';

const edges = (): bigint[] => {
  const out = [0n, 1n, -1n, 63n, 64n, -64n, -65n, 127n, 128n, 2n ** 31n, -(2n ** 31n), 2n ** 32n, 1_700_000_000_000n, 10_000_000_000_000n];
  for (const e of [28, 30, 35, 42, 48, 49, 50, 51, 52, 53, 54, 56, 62, 63]) {
    const v = 2n ** BigInt(e);
    out.push(v - 1n, v, v + 1n, -v - 1n, -v, -v + 1n);
  }
  out.push(9_223_372_036_854_775_807n, -9_223_372_036_854_775_808n);
  let seed = 0x2545f4914f6cdd1dn;
  for (let i = 0; i < 2_000; i++) {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn;
    out.push(BigInt.asIntN(64, seed) >> BigInt(i % 64));
  }
  return out.filter((v) => v >= -(2n ** 63n) && v < 2n ** 63n);
};

describe('avro long as bigint: the number fast path', () => {
  it('writes the same bytes as the Buffer way and reads every value back exactly, both ways across', () => {
    for (const v of edges()) {
      const fast = bigintLongType.toBuffer(v);
      const slow = bufferBigintLongType.toBuffer(v);
      expect(fast.toString('hex')).toBe(slow.toString('hex'));
      expect(bigintLongType.fromBuffer(slow)).toBe(v);
      expect(bufferBigintLongType.fromBuffer(fast)).toBe(v);
    }
  });

  it('refuses what is not a bigint, as before', () => {
    expect(() => bigintLongType.toBuffer(5 as never)).toThrow();
    expect(bigintLongType.isValid(5)).toBe(false);
    expect(bigintLongType.isValid(5n)).toBe(true);
  });

  it('reads a truncated varint as invalid instead of throwing on a partial number', () => {
    const whole = bigintLongType.toBuffer(2n ** 40n);
    expect(() => bigintLongType.fromBuffer(whole.subarray(0, 3))).toThrow(/truncated|invalid|trailing/i);
  });

  it('round-trips a real command schema through records, unions and arrays of longs', () => {
    const schema = JSON.parse(readFileSync(path.join(__dirname, '../../schemas/account-command.avsc'), 'utf8'));
    const fast = avro.Type.forSchema(schema, { typeHook: bigintLongHook as never });
    const slowHook = (s: unknown) => (bigintLongHook(s) ? bufferBigintLongType : undefined);
    const slow = avro.Type.forSchema(schema, { typeHook: slowHook as never });
    for (let i = 0; i < 20; i++) {
      const value = slow.random();
      const a = fast.toBuffer(value);
      expect(a.equals(slow.toBuffer(value))).toBe(true);
      expect(fast.fromBuffer(a)).toEqual(slow.fromBuffer(a));
    }
  });
});
