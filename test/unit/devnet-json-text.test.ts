import { stringify } from '../../infra/devnet/src/json-text';
import { toJson } from '../../infra/devnet/src/http/json';
import { decodeJson, encodeJson } from '../../infra/devnet/src/persistence';

/** The devnet's JSON writer must print exactly what JSON.stringify with a bigint replacer printed before it. */
const viaStringify = (value: unknown, bigint: (v: bigint) => unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? bigint(v) : v));

const samples: unknown[] = [
  {},
  [],
  null,
  'plain',
  'quote " backslash \\ newline \n tab \t nul \u0000 \u001f del \u007f é 漢 😀 lone \ud800 \udc00',
  0,
  -0,
  1.5,
  -12.25e-7,
  1e21,
  Number.MAX_SAFE_INTEGER,
  NaN,
  Infinity,
  true,
  false,
  123456789012345678901234567890n,
  -5n,
  { a: undefined, b: () => 1, c: Symbol('x'), d: null, e: 0n, f: [undefined, () => 1, Symbol('y'), 1n] },
  { 2: 'two', 1: 'one', b: 'b', a: 'a', '"k"': 'quoted key', 'é': 'x' },
  { buffer: Buffer.from('hi'), date: new Date(0), nested: { toJSON: (key: string) => `key was ${key}` } },
  [[[]], [{}], { deep: { deeper: [1n, '2', 3, { x: [null] }] } }],
  {
    address: '41' + 'ab'.repeat(20), balance: 123456789n, unfrozen: [{ resource: 'ENERGY', amount: 1n, expireTime: 1795480018978 }],
    to: Array.from({ length: 50 }, (_, i) => '41' + String(i).padStart(40, '0')),
  },
];

describe('devnet JSON text', () => {
  it.each(samples.map((s, i) => [i, s]))('sample %i prints as JSON.stringify does', (_i, value) => {
    expect(stringify(value, (v) => `{"$n":"${v}"}`)).toBe(viaStringify(value, (v) => ({ $n: v.toString() })));
    expect(stringify(value, (v) => `"${v}"`)).toBe(viaStringify(value, (v) => v.toString()));
    expect(encodeJson(value)).toBe(viaStringify(value, (v) => ({ $n: v.toString() })));
  });

  it('prints int64 fields bare, or as strings when asked, and keeps block lines exact', () => {
    const answer = { balance: 9007199254740993n, list: [1n, -2n], name: 'x' };
    expect(toJson(answer)).toBe('{"balance":9007199254740993,"list":[1,-2],"name":"x"}');
    expect(toJson(answer, true)).toBe('{"balance":"9007199254740993","list":["1","-2"],"name":"x"}');
    expect(decodeJson(encodeJson(answer))).toEqual(answer);
    expect(stringify(undefined, String)).toBe('undefined');
  });
});
