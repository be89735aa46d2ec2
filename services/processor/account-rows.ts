/** The accounts table to and from the domain's Account. */
import type { Account } from '../domain/account';

export const accountColumns = [
  'id', 'brand', 'network', 'owner_address', 'display_name', 'status', 'balance_sun', 'balance_usdt', 'reserved_sun',
  'deposited_sun', 'spent_sun', 'refunded_sun', 'orders_created', 'energy_delegated', 'created_at', 'updated_at',
  'email', 'deposit_address', 'deposit_index', 'deposit_issued_at', 'retired_deposit_addresses', 'low_balance_threshold_sun',
] as const;

export function accountFromRow(row: Record<string, any>): Account {
  return {
    id: row.id,
    brand: row.brand,
    network: row.network,
    ownerAddress: row.owner_address,
    displayName: row.display_name,
    status: row.status,
    balanceSun: row.balance_sun,
    balanceUsdt: row.balance_usdt,
    reservedSun: row.reserved_sun,
    totals: {
      depositedSun: row.deposited_sun,
      spentSun: row.spent_sun,
      refundedSun: row.refunded_sun,
      ordersCreated: row.orders_created,
      energyDelegated: row.energy_delegated,
    },
    email: row.email,
    depositAddress: row.deposit_address,
    depositIndex: row.deposit_index,
    depositIssuedAt: row.deposit_issued_at === null ? null : (row.deposit_issued_at as Date).getTime(),
    retiredDepositAddresses: row.retired_deposit_addresses ?? [],
    lowBalanceThresholdSun: row.low_balance_threshold_sun,
    createdAt: (row.created_at as Date).getTime(),
    updatedAt: (row.updated_at as Date).getTime(),
  };
}

export function accountToRow(a: Account): unknown[] {
  return [
    a.id, a.brand, a.network, a.ownerAddress, a.displayName, a.status, a.balanceSun, a.balanceUsdt, a.reservedSun,
    a.totals.depositedSun, a.totals.spentSun, a.totals.refundedSun, a.totals.ordersCreated, a.totals.energyDelegated,
    new Date(a.createdAt), new Date(a.updatedAt),
    a.email, a.depositAddress, a.depositIndex, a.depositIssuedAt === null ? null : new Date(a.depositIssuedAt),
    JSON.stringify(a.retiredDepositAddresses), a.lowBalanceThresholdSun ?? null,
  ];
}
