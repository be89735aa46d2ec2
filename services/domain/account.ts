/** The account as the ledger processor keeps it: the single writer of these fields is the processor. */
export type AccountStatus = 'unfunded' | 'active' | 'suspended' | 'closed';

export interface AccountTotals {
  depositedSun: bigint;
  spentSun: bigint;
  refundedSun: bigint;
  ordersCreated: number;
  energyDelegated: bigint;
}

/** A deposit address support replaced; it still credits deposits in blocks until `creditedUntil`. */
export interface RetiredDepositAddress {
  address: string;
  derivationIndex: number;
  retiredAt: number;
  creditedUntil: number;
}

export interface Account {
  id: string;
  brand: string;
  network: 'mainnet' | 'nile';
  ownerAddress: string | null;
  displayName: string | null;
  status: AccountStatus;
  balanceSun: bigint;
  balanceUsdt: bigint;
  reservedSun: bigint;
  totals: AccountTotals;
  /** Unverified recovery and invoicing contact. */
  email: string | null;
  /** Derived from DEPOSIT_XPUB at m/44'/195'/0'/0/<depositIndex>; null only for legacy accounts until first read. */
  depositAddress: string | null;
  depositIndex: number | null;
  depositIssuedAt: number | null;
  /** Newest first. */
  retiredDepositAddresses: RetiredDepositAddress[];
  /** balance.low fires when the available balance crosses below this; null or absent: off (the default). */
  lowBalanceThresholdSun?: bigint | null;
  createdAt: number;
  updatedAt: number;
}

export function emptyTotals(): AccountTotals {
  return { depositedSun: 0n, spentSun: 0n, refundedSun: 0n, ordersCreated: 0, energyDelegated: 0n };
}

/** The identity fields of an account that has none yet (legacy, or created bare). */
export function emptyIdentity(): Pick<Account, 'email' | 'depositAddress' | 'depositIndex' | 'depositIssuedAt' | 'retiredDepositAddresses'> {
  return { email: null, depositAddress: null, depositIndex: null, depositIssuedAt: null, retiredDepositAddresses: [] };
}

export function availableSun(account: Account): bigint {
  return account.balanceSun - account.reservedSun;
}

/** Per-account limits (contract.md section 4 defaults). */
export const accountLimits = { max_order_energy: 10_000_000, max_batch_receivers: 100, orders_per_second: 20 };
