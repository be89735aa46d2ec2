import type { Router } from 'express';
import { buildTx } from '../chain/build';
import type { FaultsRequest } from '../chain/faults';
import { isPositiveDecimal } from '../config';
import { encode, evmAddress, selector } from '../contracts/abi';
import { setPoolPrice, sqrtPriceX96For } from '../contracts/dex-pool';
import { parseAddress, toBase58 } from '../crypto/address';
import { signTxid, type KeyPair } from '../crypto/keys';
import { usdtIsToken0 } from '../genesis';
import type { DevnetNode } from '../node';
import type { Contract } from '../tx/contracts';
import { FormatError, readInt64 } from '../tx/json-values';
import type { SignedTx } from '../tx/transaction';
import { paramsOf } from './params';
import { MAX_ENERGY_FACTOR, putEnergyFactor } from '../state/energy-factor';

/** Fee limit the faucet's USDT transfers carry (100 TRX), far above what they burn. */
const FAUCET_FEE_LIMIT = 100_000_000n;
const MAX_BLOCKS_PER_CALL = 10_000;

const wallet = (k: KeyPair) => ({ address: toBase58(k.address), private_key: k.privateKey });

export function signed(tx: SignedTx, key: KeyPair): SignedTx {
  return { ...tx, signatures: [signTxid(tx.txid, key.privateKey)] };
}

function amount(value: unknown, name: string): bigint {
  const v = typeof value === 'string' && /^\d+\.0*$/.test(value) ? value.split('.')[0] : value;
  const n = readInt64(v, name);
  if (n < 0n) throw new FormatError(`${name} must not be negative`);
  return n;
}

function nonNegativeInt(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new FormatError(`${name} must be a non-negative integer`);
  return n;
}

/** The devnet-only /admin API (shapes fixed in contract.md section 7; README.md documents them). */
export function adminRoutes(router: Router, node: DevnetNode): void {
  const bad = (res: Parameters<Parameters<Router['post']>[1]>[1], message: string) => res.status(400).json({ error: message });

  router.get('/admin/accounts', (_req, res) => {
    const a = node.accounts;
    res.json({
      faucet: wallet(a.faucet),
      customers: a.customers.map(wallet),
      pool: a.pool.map(wallet),
      usdt_contract: toBase58(a.usdt),
      dex_pool: toBase58(a.dexPool),
      forwarder_contract: toBase58(a.forwarder),
    });
  });

  router.post('/admin/faucet', async (req, res) => {
    const p = paramsOf(req);
    const to = parseAddress(p.to);
    if (!to) return bad(res, 'to must be a TRON address');
    const trx = amount(p.trx_sun, 'trx_sun');
    const usdt = amount(p.usdt, 'usdt');
    if (trx === 0n && usdt === 0n) return bad(res, 'give trx_sun and/or usdt');
    const faucet = node.accounts.faucet;
    const contracts: { contract: Contract; feeLimit?: bigint }[] = [];
    if (trx > 0n) contracts.push({ contract: { type: 'TransferContract', owner: faucet.address, to, amount: trx } });
    if (usdt > 0n) {
      const data = Buffer.from(selector('transfer(address,uint256)') + encode(['address', 'uint256'], [evmAddress(to), usdt]).toString('hex'), 'hex');
      const contract: Contract = { type: 'TriggerSmartContract', owner: faucet.address, contract: node.accounts.usdt, callValue: 0n, data, callTokenValue: 0n, tokenId: 0n };
      contracts.push({ contract, feeLimit: FAUCET_FEE_LIMIT });
    }
    const txids: string[] = [];
    for (const { contract, feeLimit } of contracts) {
      const answer = await node.admission.broadcast(signed(buildTx(node.chain, contract, { feeLimit }), faucet), { faults: false });
      if (!('result' in answer)) return res.status(409).json({ error: Buffer.from(answer.message, 'hex').toString('utf8'), code: answer.code, txids });
      txids.push(answer.txid);
    }
    res.json({ txids });
  });

  router.post('/admin/blocks', (req, res) => {
    const count = nonNegativeInt(paramsOf(req).count ?? 1, 'count') ?? 1;
    if (count < 1 || count > MAX_BLOCKS_PER_CALL) return bad(res, `count must be between 1 and ${MAX_BLOCKS_PER_CALL}`);
    for (let i = 0; i < count; i++) node.produceBlock();
    res.json({ head: node.chain.head().number });
  });

  router.post('/admin/price', (req, res) => {
    const value = paramsOf(req).trx_per_usdt;
    const price = typeof value === 'number' ? String(value) : value;
    if (typeof price !== 'string' || !isPositiveDecimal(price)) return bad(res, 'trx_per_usdt must be a positive decimal string');
    // Written to pending state directly: visible at once on /wallet, on /walletsolidity once solid.
    setPoolPrice(node.chain.pendingView(), node.accounts.dexPool, sqrtPriceX96For(price, usdtIsToken0(node.accounts)));
    res.json({ ok: true });
  });

  router.post('/admin/energy-factor', (req, res) => {
    const p = paramsOf(req);
    const contract = parseAddress(p.contract);
    if (!contract || !node.chain.contracts.get(contract)) return bad(res, 'contract must be a contract address');
    const factor = amount(p.energy_factor, 'energy_factor');
    if (factor > MAX_ENERGY_FACTOR) return bad(res, `energy_factor must be at most ${MAX_ENERGY_FACTOR}`);
    // As the price: pending state at once, solidified with the next solidified block.
    putEnergyFactor(node.chain.pendingView(), contract, factor);
    res.json({ ok: true, contract: toBase58(contract), energy_factor: Number(factor) });
  });

  router.post('/admin/faults', (req, res) => {
    const p = paramsOf(req) as Record<string, unknown>;
    const faults: FaultsRequest = {
      clear: p.clear === true,
      drop_next_broadcasts: nonNegativeInt(p.drop_next_broadcasts, 'drop_next_broadcasts'),
      delay_next_broadcasts: nonNegativeInt(p.delay_next_broadcasts, 'delay_next_broadcasts'),
      delay_blocks: nonNegativeInt(p.delay_blocks, 'delay_blocks'),
      fail_reads_ms: nonNegativeInt(p.fail_reads_ms, 'fail_reads_ms'),
    };
    if (p.never_land !== undefined) {
      if (!Array.isArray(p.never_land) || p.never_land.some((t) => typeof t !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(t))) {
        return bad(res, 'never_land must be a list of txids');
      }
      faults.never_land = p.never_land as string[];
    }
    node.faults.apply(faults, Date.now());
    res.json({ ok: true, faults: node.faults.describe(Date.now()) });
  });

  router.post('/admin/reset', (_req, res) => {
    node.reset();
    res.json({ ok: true, head: node.chain.head().number });
  });
}
