import type { Request, Response, Router } from 'express';
import type { Block } from '../chain/block';
import type { DevnetNode } from '../node';
import { readInt64 } from '../tx/json-values';
import { isVisible, paramsOf, sendJson, type Params } from './params';
import { blockJson } from './views';

/** java-tron answers at most 100 blocks per range query. */
const MAX_RANGE = 100;

/**
 * Block reads. Under /walletsolidity/ the chain ends at the solidified block, as a solidity
 * node's does.
 */
export function blockRoutes(router: Router, node: DevnetNode, solidity: boolean): void {
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

  router.all(base + '/getnowblock', (req, res) => {
    const p = paramsOf(req);
    sendJson(res, p, one(p, byNumber(headNumber())));
  });
  router.all(base + '/getblock', (req, res) => {
    const p = paramsOf(req);
    const detail = p.detail === true || p.detail === 'true';
    const idOrNum = p.id_or_num === undefined ? undefined : String(p.id_or_num);
    let block: Block | undefined;
    if (idOrNum === undefined || idOrNum === '') block = byNumber(headNumber());
    else if (/^\d+$/.test(idOrNum) && idOrNum.length < 64) block = byNumber(Number(idOrNum));
    else block = node.chain.blocks.find((b) => b.id === idOrNum && b.number <= headNumber());
    sendJson(res, p, one(p, block, detail));
  });
  router.all(base + '/getblockbynum', (req, res) => {
    const p = paramsOf(req);
    sendJson(res, p, one(p, byNumber(Number(readInt64(p.num, 'num')))));
  });
  router.all(base + '/getblockbyid', (req, res) => {
    const p = paramsOf(req);
    const id = String(p.value ?? '');
    const number = /^[0-9a-f]{64}$/.test(id) ? parseInt(id.slice(0, 16), 16) : -1;
    const block = byNumber(number);
    sendJson(res, p, one(p, block?.id === id ? block : undefined));
  });
  const limitNext = (req: Request, res: Response) => {
    const p = paramsOf(req);
    sendJson(res, p, range(p, Number(readInt64(p.startNum, 'startNum')), Number(readInt64(p.endNum, 'endNum'))));
  };
  router.all(base + '/getblockbylimitnext', limitNext);
  router.all(base + '/getblockbyrange', limitNext);
  router.all(base + '/getblockbylatestnum', (req, res) => {
    const p = paramsOf(req);
    const count = Number(readInt64(p.num, 'num'));
    const end = headNumber() + 1;
    sendJson(res, p, count > 0 && count <= MAX_RANGE ? range(p, Math.max(0, end - count), end) : {});
  });
}
