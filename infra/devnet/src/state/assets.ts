/**
 * TRC-10 state: issued assets by id, each account's assetV2 map, the issuer's one asset, and
 * java-tron's TOKEN_ID_NUM (ids start at 1000001). Stored under their own keys so Account stays as is.
 */
import type { HexAddress } from '../crypto/address';
import type { StateView } from './accounts';

export interface AssetRecord {
  readonly id: string;
  readonly owner: HexAddress;
  readonly name: string;
  readonly abbr: string;
  readonly totalSupply: bigint;
  readonly trxNum: bigint;
  readonly precision: bigint;
  readonly num: bigint;
  readonly startTime: bigint;
  readonly endTime: bigint;
  readonly description: string;
  readonly url: string;
  readonly freeAssetNetLimit: bigint;
  readonly publicFreeAssetNetLimit: bigint;
}

/** java-tron's initial TOKEN_ID_NUM; the first asset gets this plus one. */
const FIRST_TOKEN_ID_NUM = 1_000_000n;

export function asset(view: StateView, id: string): AssetRecord | undefined {
  return view.layer.get<AssetRecord>('asset:' + id);
}

export function putAsset(view: StateView, record: AssetRecord): void {
  view.layer.set('asset:' + record.id, record);
  view.layer.set('assetIssuer:' + record.owner, record.id);
}

/** The id of the asset this account issued (java-tron: asset_issued_ID), if any. */
export function issuedAssetOf(view: StateView, owner: HexAddress): string | undefined {
  return view.layer.get<string>('assetIssuer:' + owner);
}

export function nextTokenId(view: StateView): string {
  const current = view.layer.get<bigint>('prop:tokenIdNum') ?? FIRST_TOKEN_ID_NUM;
  view.layer.set('prop:tokenIdNum', current + 1n);
  return String(current + 1n);
}

/** assetV2: token id -> balance. */
export function assetBalances(view: StateView, holder: HexAddress): Readonly<Record<string, bigint>> {
  return view.layer.get<Record<string, bigint>>('assetV2:' + holder) ?? {};
}

export function putAssetBalance(view: StateView, holder: HexAddress, id: string, amount: bigint): void {
  const next: Record<string, bigint> = { ...assetBalances(view, holder), [id]: amount };
  if (amount === 0n) delete next[id];
  view.layer.set('assetV2:' + holder, Object.keys(next).length ? next : undefined);
}
