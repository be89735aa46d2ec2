import type { Router } from 'express';
import { parseAddress } from '../crypto/address';
import type { DevnetNode } from '../node';
import type { StateView } from '../state/accounts';
import { chainParametersJson } from '../state/params';
import { delegatableStake } from '../state/resources';
import { isVisible, type Params } from './params';
import { serveRead, type Reads } from './reads';
import { accountJson, accountResourceJson, shownAddress } from './views';
import { accountAssetJson } from './routes-assets';

/** Account, resource and delegation reads; /walletsolidity/ reads the solidified state. */
export function accountRoutes(router: Router, reads: Reads, node: DevnetNode, solidity: boolean): void {
  const base = solidity ? '/walletsolidity' : '/wallet';
  const view = (): StateView => (solidity ? node.chain.solidView() : node.chain.pendingView());
  const get = (path: string, handler: (p: Params, v: StateView) => unknown) => serveRead(router, reads, base + path, (p) => handler(p, view()));

  get('/getaccount', (p, v) => {
    const address = parseAddress(p.address);
    const account = address ? v.account(address) : undefined;
    return account ? { ...accountJson(node.chain, account, isVisible(p)), ...accountAssetJson(v, account.address, isVisible(p)) } : {};
  });
  get('/getaccountresource', (p, v) => {
    const address = parseAddress(p.address);
    const account = address ? v.account(address) : undefined;
    return account ? accountResourceJson(node.chain, v, account) : {};
  });
  get('/getaccountnet', (p, v) => {
    const address = parseAddress(p.address);
    const account = address ? v.account(address) : undefined;
    if (!account) return {};
    const all = accountResourceJson(node.chain, v, account);
    const keys = ['freeNetUsed', 'freeNetLimit', 'NetUsed', 'NetLimit', 'TotalNetLimit', 'TotalNetWeight'];
    return Object.fromEntries(Object.entries(all).filter(([k]) => keys.includes(k)));
  });
  get('/getdelegatedresourcev2', (p, v) => {
    const from = parseAddress(p.fromAddress);
    const to = parseAddress(p.toAddress);
    if (!from || !to) return {};
    const visible = isVisible(p);
    const records = [v.delegation(from, to, false), v.delegation(from, to, true)].filter((d) => d !== undefined);
    if (records.length === 0) return {};
    return {
      delegatedResource: records.map((d) => {
        const out: Record<string, unknown> = { from: shownAddress(d.from, visible), to: shownAddress(d.to, visible) };
        if (d.bandwidth) out.frozen_balance_for_bandwidth = d.bandwidth;
        if (d.energy) out.frozen_balance_for_energy = d.energy;
        if (d.expireBandwidth) out.expire_time_for_bandwidth = BigInt(d.expireBandwidth);
        if (d.expireEnergy) out.expire_time_for_energy = BigInt(d.expireEnergy);
        return out;
      }),
    };
  });
  get('/getdelegatedresourceaccountindexv2', (p, v) => {
    const address = parseAddress(p.value);
    if (!address) return {};
    const index = v.delegationIndex(address);
    if (!index.from.length && !index.to.length) return {};
    const visible = isVisible(p);
    const out: Record<string, unknown> = { account: shownAddress(address, visible) };
    if (index.from.length) out.fromAccounts = index.from.map((a) => shownAddress(a, visible));
    if (index.to.length) out.toAccounts = index.to.map((a) => shownAddress(a, visible));
    return out;
  });
  get('/getcandelegatedmaxsize', (p, v) => {
    const address = parseAddress(p.owner_address);
    const account = address ? v.account(address) : undefined;
    if (!account) return {};
    const resource = String(p.type ?? '0') === '1' || p.type === 'ENERGY' ? 'ENERGY' : 'BANDWIDTH';
    const max = delegatableStake(v, account, resource, node.chain.slotOf(node.chain.head().timestamp));
    return max ? { max_size: max } : {};
  });
  get('/getchainparameters', () => chainParametersJson());
}
