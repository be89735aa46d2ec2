import type { Router } from 'express';
import { buildTx } from '../chain/build';
import { parseAddress, sha256, toBase58, type HexAddress } from '../crypto/address';
import { addressOfKey, type KeyPair } from '../crypto/keys';
import type { DevnetNode } from '../node';
import type { StateView } from '../state/accounts';
import { asset, assetBalances, issuedAssetOf, type AssetRecord } from '../state/assets';
import { TRX } from '../state/params';
import { ASSET_ISSUE_FEE_SUN } from '../actuators/asset';
import type { Contract, ContractType } from '../tx/contracts';
import { isVisible, paramsOf, sendJson, type Params } from './params';
import { signed } from './routes-admin';

/** Byte fields of the TRC-10 contracts: with visible=true java-tron reads them as plain text. */
const BYTE_FIELDS: Partial<Record<ContractType, string[]>> = {
  TransferAssetContract: ['asset_name'],
  AssetIssueContract: ['name', 'abbr', 'description', 'url'],
};

export function visibleBytesAsHex(type: ContractType, p: Params): Params {
  const fields = BYTE_FIELDS[type];
  if (!fields || !isVisible(p)) return p;
  const out = { ...p };
  for (const f of fields) if (typeof out[f] === 'string') out[f] = Buffer.from(out[f] as string, 'utf8').toString('hex');
  return out;
}

const text = (value: string, visible: boolean) => (visible ? value : Buffer.from(value, 'utf8').toString('hex'));

/** AssetIssueContract as /wallet/getassetissuebyid prints it (defaults omitted). */
export function assetJson(a: AssetRecord, visible: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { id: a.id, owner_address: visible ? toBase58(a.owner) : a.owner, name: text(a.name, visible) };
  if (a.abbr) out.abbr = text(a.abbr, visible);
  out.total_supply = a.totalSupply;
  out.trx_num = a.trxNum;
  if (a.precision) out.precision = a.precision;
  out.num = a.num;
  out.start_time = a.startTime;
  out.end_time = a.endTime;
  if (a.description) out.description = text(a.description, visible);
  if (a.url) out.url = text(a.url, visible);
  if (a.freeAssetNetLimit) out.free_asset_net_limit = a.freeAssetNetLimit;
  if (a.publicFreeAssetNetLimit) out.public_free_asset_net_limit = a.publicFreeAssetNetLimit;
  return out;
}

/** The TRC-10 fields of an Account: assetV2 (id -> balance), asset_issued_ID and asset_issued_name. */
export function accountAssetJson(view: StateView, address: HexAddress, visible: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const issued = issuedAssetOf(view, address);
  const record = issued === undefined ? undefined : asset(view, issued);
  if (record) {
    out.asset_issued_name = text(record.name, visible);
    out.asset_issued_ID = text(record.id, visible);
  }
  const balances = Object.entries(assetBalances(view, address));
  if (balances.length) out.assetV2 = balances.map(([key, value]) => ({ key, value }));
  return out;
}

export function assetRoutes(router: Router, node: DevnetNode): void {
  for (const solidity of [false, true]) {
    const base = solidity ? '/walletsolidity' : '/wallet';
    const view = (): StateView => (solidity ? node.chain.solidView() : node.chain.pendingView());
    router.all(base + '/getassetissuebyid', (req, res) => {
      const p = paramsOf(req);
      const record = asset(view(), String(p.value ?? ''));
      sendJson(res, p, record ? assetJson(record, isVisible(p)) : {});
    });
  }

  // contract.md section 7: issues a TRC-10 promo token from a fresh drop address and drops `amount`
  // to each holder, every step an ordinary signed transaction through the broadcast path.
  router.post('/admin/promo-token', async (req, res) => {
    const p = paramsOf(req);
    const name = p.name;
    if (typeof name !== 'string' || !/^[\x21-\x7e]{1,32}$/.test(name) || name.toLowerCase() === 'trx') {
      return res.status(400).json({ error: 'name must be 1 to 32 printable ASCII characters without spaces' });
    }
    const holders = Array.isArray(p.holders) ? p.holders.map(parseAddress) : [undefined];
    if (holders.length === 0 || holders.some((h) => h === undefined)) return res.status(400).json({ error: 'holders must be a non-empty list of TRON addresses' });
    const amount = typeof p.amount === 'number' || typeof p.amount === 'string' ? BigInt(/^\d+$/.test(String(p.amount)) ? String(p.amount) : '0') : 0n;
    if (amount <= 0n) return res.status(400).json({ error: 'amount must be a positive integer' });

    const chain = node.chain;
    const count = chain.pendingView().layer.get<bigint>('prop:tokenIdNum') ?? 0n;
    const dropKey = sha256(Buffer.from(`${node.accounts.faucet.privateKey}:promo-drop:${count}:${Date.now()}`, 'utf8')).toString('hex');
    const drop: KeyPair = { privateKey: dropKey, address: addressOfKey(dropKey) };
    // java-tron wants start_time after the head block time when the issue executes: a minute ahead.
    const head = Math.max(chain.head().timestamp, Date.now()) + 60_000;
    const steps: Contract[] = [
      // The issue fee, plus account creation and bandwidth for every drop transfer.
      { type: 'TransferContract', owner: node.accounts.faucet.address, to: drop.address, amount: ASSET_ISSUE_FEE_SUN + BigInt(holders.length * 3 + 10) * TRX },
      {
        type: 'AssetIssueContract', owner: drop.address, name: Buffer.from(name), abbr: Buffer.from(name), totalSupply: amount * BigInt(holders.length),
        trxNum: 1n, precision: 0n, num: 1n, startTime: BigInt(head), endTime: BigInt(head + 365 * 86_400_000),
        description: Buffer.from('devnet promo token'), url: Buffer.from('https://devnet.invalid'), freeAssetNetLimit: 0n, publicFreeAssetNetLimit: 0n,
      },
    ];
    const txids: string[] = [];
    let tokenId: string | undefined;
    for (const contract of steps) {
      const key = contract.owner === drop.address ? drop : node.accounts.faucet;
      const answer = await node.admission.broadcast(signed(buildTx(chain, contract), key), { faults: false });
      if (!('result' in answer)) return res.status(409).json({ error: Buffer.from(answer.message, 'hex').toString('utf8'), code: answer.code, txids });
      txids.push(answer.txid);
    }
    tokenId = issuedAssetOf(chain.pendingView(), drop.address);
    if (!tokenId) return res.status(500).json({ error: 'asset not issued', txids });
    for (const to of holders as HexAddress[]) {
      const contract: Contract = { type: 'TransferAssetContract', owner: drop.address, to, assetName: Buffer.from(tokenId), amount };
      const answer = await node.admission.broadcast(signed(buildTx(chain, contract), drop), { faults: false });
      if (!('result' in answer)) return res.status(409).json({ error: Buffer.from(answer.message, 'hex').toString('utf8'), code: answer.code, txids });
      txids.push(answer.txid);
    }
    res.json({ token_id: tokenId, drop_address: toBase58(drop.address), txids });
  });
}
