/**
 * The engine-backed JSON helpers give exactly what lossless-json gives: stringifyJson the same text,
 * parseOwnJson the same values (int64 beyond 2^53 as bigint, safe integers and fractions as numbers).
 */
import { isSafeNumber, parse, stringify } from 'lossless-json';
import { jsonInt, parseJson, parseOwnJson, stringifyBigintJson, stringifyJson } from '../../services/platform/json';

const samples: unknown[] = [
  { a: 1, b: -2, c: 1.5, d: 0.1, e: 1e21, f: 9_007_199_254_740_991, big: 9_223_372_036_854_775_807n, neg: -12_345_678_901_234_567_890n, small: 5n },
  { nested: [{ x: null, y: true, z: 'text "quoted" \u00e9 \n' }, [], {}], undef: undefined, date: new Date(0) },
  [1, 'two', null, [3n, { four: 4 }]],
  'plain',
  42,
];

test('stringifyJson writes what lossless-json writes', () => {
  for (const v of samples) expect(stringifyJson(v)).toBe(stringify(v));
});

test('stringifyBigintJson (the replacer first) writes the same text, and refuses the same values', () => {
  for (const v of samples) expect(stringifyBigintJson(v)).toBe(stringify(v));
  expect(() => stringifyBigintJson(undefined)).toThrow(TypeError);
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  expect(() => stringifyBigintJson(loop)).toThrow(/circular/i);
});

test('parseOwnJson reads what parseJson reads, int64 exact', () => {
  const texts = [
    ...samples.map((v) => stringifyJson(v)),
    '{"at2p53":9007199254740992,"above":9007199254740993,"exp":1e3,"neg0":-0,"frac":123456789012345678.5}',
  ];
  for (const text of texts) expect(parseOwnJson(text)).toEqual(parseJson(text));
  expect(parseOwnJson('{"x":9223372036854775807}')).toEqual({ x: 9_223_372_036_854_775_807n });
});

test('stringifyJson refuses what JSON cannot hold', () => {
  expect(() => stringifyJson(undefined)).toThrow(TypeError);
  // Circular: the fast path's TypeError is not a bigint's; the replacer's pass throws it again.
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  expect(() => stringifyJson(loop)).toThrow(/circular/i);
});

test('stringifyJson: a bigint deep in a value (the fast path given up part way) writes what lossless-json writes', () => {
  const late = { items: Array.from({ length: 30 }, (_, k) => ({ k, s: 'x'.repeat(k) })), tail: [1, { sun: 12_345_678_901_234_567_890n }] };
  expect(stringifyJson(late)).toBe(stringify(late));
});

test('jsonInt: the same JSON text as the bigint, a number only where exact', () => {
  for (const v of [0n, 1n, -1n, 9_007_199_254_740_991n, -9_007_199_254_740_991n, 9_007_199_254_740_992n, -9_007_199_254_740_992n, 9_223_372_036_854_775_807n]) {
    expect(stringifyJson({ v: jsonInt(v) })).toBe(stringifyJson({ v }));
  }
  expect(typeof jsonInt(9_007_199_254_740_991n)).toBe('number');
  expect(typeof jsonInt(9_007_199_254_740_992n)).toBe('bigint');
  expect(typeof jsonInt(-9_007_199_254_740_992n)).toBe('bigint');
});

test('parseOwnJson without a 16-digit run (the reviver skipped) reads what parseJson reads', () => {
  const text = stringifyJson({ items: Array.from({ length: 50 }, (_, k) => ({ at: 1_763_850_000_000 + k, n: 999_999_999_999_999, f: 0.25, neg: -123_456_789_012_345, s: 'TA1234567890' })) });
  expect(/\d{16}/.test(text)).toBe(false);
  expect(parseOwnJson(text)).toEqual(parseJson(text));
  expect(parseOwnJson('{"s":"0123456789012345","big":9007199254740993}')).toEqual({ s: '0123456789012345', big: 9_007_199_254_740_993n });
});

/** lossless-json as parseJson used it before the engine read request bodies. */
const lossless = (text: string) => parse(text, null, (t: string) => (isSafeNumber(t) ? Number(t) : /^-?\d+$/.test(t) ? BigInt(t) : Number(t)));

test('parseJson (request bodies) reads what lossless-json reads, and refuses what it refuses', () => {
  const accepted = [
    ...samples.map((v) => stringifyJson(v)),
    '{"at2p53":9007199254740992,"above":9007199254740993,"e16":10000000000000000,"exp":1e3,"neg0":-0,"frac":123456789012345678.5}',
    ' { "a" : [ 1 , { "b:c" : "x\\":\\"y" } ] , "d" : "\\u0041:" } ',
    '{"__proto__":{"x":1},"s":"0123456789012345"}',
    '{"same":1,"same":1}', // a key twice with equal values: lossless-json keeps it
    '[{"a":1},{"a":2}]',
    '{"k\\\\":":","j":"\\\\","l":"\\\\\\":"}', // keys and values ending in escaped backslashes, colons in strings
    '"text"', '12', 'null',
  ];
  for (const text of accepted) expect(parseJson(text)).toEqual(lossless(text));
  expect(parseJson('{"x":9223372036854775807}')).toEqual({ x: 9_223_372_036_854_775_807n });
  const refused = ['{"a":1,"a":2}', '{"o":{"k":"v","k":"w"}}', '[{"a":1,"b":{"c":1,"c":[2]}}]', '{"a":1', '{"a":01}', '', '{a:1}', '{"a":1}x', '{"k\\\\":1,"k\\\\":2}'];
  for (const text of refused) {
    expect(() => lossless(text)).toThrow(SyntaxError);
    expect(() => parseJson(text)).toThrow(SyntaxError);
  }
  expect(() => parseJson('{"a":1,"a":2}')).toThrow("Duplicate key 'a'");
});
