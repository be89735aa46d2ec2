import type { Router } from 'express';
import type { Block } from '../chain/block';
import type { DevnetNode } from '../node';
import { readInt64 } from '../tx/json-values';
import { isVisible, type Params } from './params';
import { serveRead, type Reads } from './reads';
import { blockJson } from './views';

/** java-tron answers at most 100 blocks per range query. */
const MAX_RANGE = 100;

/**
 * Block reads. Under /walletsolidity/ the chain ends at the solidified block, as a solidity
 * node's does.
 */
export function blockRoutes(router: Router, reads: Reads, node: DevnetNode, solidity: boolean): void {
  const base = solidity ? '/walletsolidity' : '/wallet';
  const headNumber = () => (solidity ? node.chain.solidNumber() : node.chain.head().number);
  const byNumber = (n: number): Block | undefined => (n >= 0 && n <= headNumber() ? node.chain.blocks[n] : undefined);
  const one = (p: Params, block: Block | undefined, detail = true) => (block ? blockJson(block, detail, isVisible(p)) : {});
  const range = (p: Params, start: number, end: number) => {
    if (end <= start || end - start > MAX_RANGE) return {};
    const blocks: Block[] = [];
    for (let n = start; n < end; n++) {
      const b = byNumber(n);
      if (b) blocks.push(b);
    }
    return blocks.length ? { block: blocks.map((b) => blockJson(b, true, isVisible(p))) } : {};
  };

  const read = (path: string, answer: (p: Params) => unknown) => serveRead(router, reads, base + path, answer);
  read('/getnowblock', (p) => one(p, byNumber(headNumber())));
  read('/getblock', (p) => {
    const detail = p.detail === true || p.detail === 'true';
    const idOrNum = p.id_or_num === undefined ? undefined : String(p.id_or_num);
    let block: Block | undefined;
    if (idOrNum === undefined || idOrNum === '') block = byNumber(headNumber());
    else if (/^\d+$/.test(idOrNum) && idOrNum.length < 64) block = byNumber(Number(idOrNum));
    else block = node.chain.blocks.find((b) => b.id === idOrNum && b.number <= headNumber());
    return one(p, block, detail);
  });
  read('/getblockbynum', (p) => one(p, byNumber(Number(readInt64(p.num, 'num')))));
  read('/getblockbyid', (p) => {
    const id = String(p.value ?? '');
    const number = /^[0-9a-f]{64}$/.test(id) ? parseInt(id.slice(0, 16), 16) : -1;
    const block = byNumber(number);
    return one(p, block?.id === id ? block : undefined);
  });
  const limitNext = (p: Params) => range(p, Number(readInt64(p.startNum, 'startNum')), Number(readInt64(p.endNum, 'endNum')));
  read('/getblockbylimitnext', limitNext);
  read('/getblockbyrange', limitNext);
  read('/getblockbylatestnum', (p) => {
    const count = Number(readInt64(p.num, 'num'));
    const end = headNumber() + 1;
    return count > 0 && count <= MAX_RANGE ? range(p, Math.max(0, end - count), end) : {};
  });
}
