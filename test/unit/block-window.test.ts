/**
 * BlockWindow (services/chain/block-window.ts): the blocks of a view read forward once each, the window
 * restarted at the head when first used or too far behind, a block not served read again next time.
 */
import { BlockWindow } from '../../services/chain/block-window';

function chainOf(blocks: Map<number, string[]>, served: { upTo: number }) {
  const reads: Array<[number, number]> = [];
  const window = new BlockWindow<string>(async (start, end) => {
    reads.push([start, end]);
    const txs: Array<[string, string]> = [];
    let last: number | null = null;
    for (let n = start; n < end && n <= served.upTo; n++) {
      txs.push(...(blocks.get(n) ?? []).map((id): [string, string] => [id, `in ${n}`]));
      last = n;
    }
    return { txs, last };
  }, 10);
  return { window, reads };
}

test('starts at the head, then reads each later block once; a gap is read again at the next advance', async () => {
  const blocks = new Map([[5, ['a']], [6, ['b']], [7, ['c']], [8, ['d']]]);
  const served = { upTo: 6 };
  const { window, reads } = chainOf(blocks, served);
  expect(await window.advance(5)).toBe('reset');
  expect(window.has('a')).toBe(false); // before the window
  expect(await window.advance(7)).toBe('gap'); // block 7 not served yet
  expect(window.get('b')).toBe('in 6');
  served.upTo = 8;
  expect(await window.advance(8)).toBe('read');
  expect(reads).toEqual([[6, 8], [7, 8], [7, 9]]); // 6 served, 7 not: asked again from 7
  expect([window.has('c'), window.has('d')]).toEqual([true, true]);
  expect(await window.advance(8)).toBe('read');
  expect(reads).toHaveLength(3);
});

test('forgets transactions of blocks `kept` behind, and restarts when further behind or when the head went back', async () => {
  const blocks = new Map([[2, ['old']], [12, ['new']]]);
  const { window } = chainOf(blocks, { upTo: 100 });
  await window.advance(1);
  expect(await window.advance(2)).toBe('read');
  expect(window.has('old')).toBe(true);
  expect(await window.advance(12)).toBe('read');
  expect([window.has('old'), window.has('new')]).toEqual([false, true]);
  expect(await window.advance(11)).toBe('reset');
  expect(window.has('new')).toBe(false);
  expect(await window.advance(40)).toBe('reset');
  window.forget();
  expect(await window.advance(41)).toBe('reset');
});
