import { sealBlock, type Block } from './chain/block';
import type { ChainParts } from './chain/chain';
import { dexPool, setPoolPrice, sqrtPriceX96For } from './contracts/dex-pool';
import { forwarder } from './contracts/forwarder';
import { ContractRegistry } from './contracts/registry';
import { mint, trc20 } from './contracts/trc20';
import { sha256, type HexAddress } from './crypto/address';
import { addressOfKey, type KeyPair } from './crypto/keys';
import { newAccount, StateView, type Account } from './state/accounts';
import { TRX } from './state/params';
import { ownWeight } from './state/resources';
import { Layer } from './state/store';

/** Who exists at genesis; everything derives from DEVNET_SEED, so a seed always gives the same chain. */
export interface GenesisAccounts {
  readonly faucet: KeyPair;
  readonly customers: KeyPair[];
  readonly pool: KeyPair[];
  /** Produces every block. */
  readonly witness: KeyPair;
  /**
   * Stands for the rest of the network's stake so that energy per staked TRX
   * (TotalEnergyLimit / TotalEnergyWeight) is of mainnet's order instead of thousands.
   */
  readonly reserve: KeyPair;
  readonly usdt: HexAddress;
  readonly wtrx: HexAddress;
  readonly dexPool: HexAddress;
  /** The batch-payout contract (forwards TRX and calls a token's transfer). */
  readonly forwarder: HexAddress;
}

const USDT = 1_000_000n;

function key(seed: string, label: string): KeyPair {
  const privateKey = sha256(Buffer.from(`${seed}:${label}`, 'utf8')).toString('hex');
  return { privateKey, address: addressOfKey(privateKey) };
}

function contractAddress(seed: string, label: string): HexAddress {
  return '41' + sha256(Buffer.from(`${seed}:contract:${label}`, 'utf8')).subarray(12).toString('hex');
}

export function genesisAccounts(seed: string, customers: number, pool: number): GenesisAccounts {
  return {
    faucet: key(seed, 'faucet'),
    customers: Array.from({ length: customers }, (_, i) => key(seed, `customer:${i}`)),
    pool: Array.from({ length: pool }, (_, i) => key(seed, `pool:${i}`)),
    witness: key(seed, 'witness'),
    reserve: key(seed, 'reserve'),
    usdt: contractAddress(seed, 'usdt'),
    wtrx: contractAddress(seed, 'wtrx'),
    dexPool: contractAddress(seed, 'dex-pool'),
    forwarder: contractAddress(seed, 'forwarder'),
  };
}

/** The contracts are code, not state: rebuilt from the accounts at every start. */
export function genesisContracts(a: GenesisAccounts): ContractRegistry {
  const registry = new ContractRegistry();
  registry.add(trc20(a.usdt, a.faucet.address, { name: 'Tether USD', symbol: 'USDT', decimals: 6 }));
  registry.add(trc20(a.wtrx, a.faucet.address, { name: 'Wrapped TRX', symbol: 'WTRX', decimals: 6 }));
  const [token0, token1] = usdtIsToken0(a) ? [a.usdt, a.wtrx] : [a.wtrx, a.usdt];
  registry.add(dexPool(a.dexPool, a.faucet.address, token0, token1));
  registry.add(forwarder(a.forwarder, a.faucet.address));
  return registry;
}

/** Uniswap orders a pool's tokens by address value. */
export function usdtIsToken0(a: GenesisAccounts): boolean {
  return a.usdt < a.wtrx;
}

interface Stake {
  balance: bigint;
  energy?: bigint;
  bandwidth?: bigint;
  usdt?: bigint;
}

function fund(view: StateView, address: HexAddress, nowMs: number, s: Stake): void {
  const account: Account = { ...newAccount(address, nowMs), balance: s.balance * TRX, frozenEnergy: (s.energy ?? 0n) * TRX, frozenBandwidth: (s.bandwidth ?? 0n) * TRX };
  view.putAccount(account);
  view.addWeight('ENERGY', ownWeight(account, 'ENERGY'));
  view.addWeight('BANDWIDTH', ownWeight(account, 'BANDWIDTH'));
}

/** Genesis state and block 0. Amounts are in TRX / USDT here and stored in SUN / base units. */
export function buildGenesis(a: GenesisAccounts, trxPerUsdt: string, genesisMs: number): ChainParts {
  const solid = new Layer(null);
  const view = new StateView(solid);
  fund(view, a.faucet.address, genesisMs, { balance: 1_000_000_000n, energy: 10_000_000n, bandwidth: 1_000_000n });
  for (const c of a.customers) fund(view, c.address, genesisMs, { balance: 100_000n });
  for (const p of a.pool) fund(view, p.address, genesisMs, { balance: 1_000_000n, energy: 10_000_000n, bandwidth: 1_000_000n });
  fund(view, a.reserve.address, genesisMs, { balance: 0n, energy: 8_000_000_000n, bandwidth: 4_000_000_000n });
  fund(view, a.witness.address, genesisMs, { balance: 0n });
  for (const contract of [a.usdt, a.wtrx, a.dexPool, a.forwarder]) view.putAccount(newAccount(contract, genesisMs, true));
  mint(view, a.usdt, a.faucet.address, 1_000_000_000n * USDT);
  for (const c of a.customers) mint(view, a.usdt, c.address, 10_000n * USDT);
  setPoolPrice(view, a.dexPool, sqrtPriceX96For(trxPerUsdt, usdtIsToken0(a)));
  const block0: Block = sealBlock(0, '00'.repeat(32), genesisMs, a.witness.address, a.witness.privateKey, []);
  return { genesisMs, solid, unsolid: [], blocks: [block0] };
}
