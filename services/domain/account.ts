/** The account as the ledger processor keeps it: the single writer of these fields is the processor. */
export type AccountStatus = 'unfunded' | 'active' | 'suspended' | 'closed';

export interface AccountTotals {
  depositedSun: bigint;
  spentSun: bigint;
  refundedSun: bigint;
  ordersCreated: number;
  energyDelegated: bigint;
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
  createdAt: number;
  updatedAt: number;
}

export function emptyTotals(): AccountTotals {
  return { depositedSun: 0n, spentSun: 0n, refundedSun: 0n, ordersCreated: 0, energyDelegated: 0n };
}

export function availableSun(account: Account): bigint {
  return account.balanceSun - account.reservedSun;
}
