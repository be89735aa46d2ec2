/** The batches page's receiver list: pasted lines or a CSV file, positional or by header, with line-numbered errors. */
import fc from 'fast-check';
import { parseReceivers } from '../../web/src/batch-input';

const A = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const B = 'TWttKHNUBGuVtGNfq7DsBWzV4d2FEsvX6A';
const C = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';

test('one address per line; amount, tier and resource by position; blank and # lines skipped; any separator', () => {
  const text = `# receivers\n${A}\n\n${B},130000,1h\r\n${C}; 65_000 ;5m;energy\n`;
  expect(parseReceivers(text, 100)).toEqual({
    items: [{ receiver: A }, { receiver: B, amount: 130000, tier: '1h' }, { receiver: C, amount: 65000, tier: '5m', resource: 'energy' }],
    errors: [],
  });
  expect(parseReceivers(`${A}\t65000\n${B} 70000 1h`, 100).items).toEqual([{ receiver: A, amount: 65000 }, { receiver: B, amount: 70000, tier: '1h' }]);
  // An empty cell keeps its column: the tier is still third.
  expect(parseReceivers(`${A},,1h`, 100).items).toEqual([{ receiver: A, tier: '1h' }]);
});

test('a header line picks columns by name (a spreadsheet export), quotes are dropped', () => {
  const csv = `tier,Receiver,amount\n"1h","${A}",90000\n5m,${B},\n`;
  expect(parseReceivers(csv, 100)).toEqual({ items: [{ receiver: A, tier: '1h', amount: 90000 }, { receiver: B, tier: '5m' }], errors: [] });
  expect(parseReceivers(`receiver,price\n${A},1`, 100).errors).toEqual([{ line: 1, message: 'Unknown column price; known: receiver, amount, tier, resource.' }]);
});

test('bad addresses, repeated receivers, bad amounts and too many receivers are reported by line, not sent', () => {
  const r = parseReceivers(`${A}\nTnot-an-address\n${A}\n${B},-5\n${C},1.5`, 100);
  expect(r.items).toEqual([{ receiver: A }]);
  expect(r.errors).toEqual([
    { line: 2, message: 'Not a TRON address: Tnot-an-address' },
    { line: 3, message: 'Same receiver as line 1.' },
    { line: 4, message: 'Amount must be a whole number above 0: -5' },
    { line: 5, message: 'Amount must be a whole number above 0: 1.5' },
  ]);
  expect(parseReceivers([A, B, C].join('\n'), 2).errors).toEqual([{ line: 0, message: '3 receivers; at most 2 per batch.' }]);
});

test('every distinct well-formed address pasted comes back once, in order', () => {
  const base58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const address = fc.array(fc.constantFrom(...base58), { minLength: 33, maxLength: 33 }).map((cs) => `T${cs.join('')}`);
  fc.assert(fc.property(fc.uniqueArray(address, { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\n\n'), (list, nl) => {
    const r = parseReceivers(list.join(nl), 100);
    expect(r.errors).toEqual([]);
    expect(r.items.map((i) => i.receiver)).toEqual(list);
  }));
});
