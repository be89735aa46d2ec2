/** The accounts table to and from the domain's Account. */
import type { Account } from '../domain/account';
import type { TypedColumns } from '../platform/db/bulk';

/** The accounts table's columns and their types (the processor writes them as column arrays). */
export const accountColumnTypes = [
  ['id', 'text'], ['brand', 'text'], ['network', 'text'], ['owner_address', 'text'], ['display_name', 'text'],
  ['status', 'text'], ['balance_sun', 'bigint'], ['balance_usdt', 'bigint'], ['reserved_sun', 'bigint'],
  ['deposited_sun', 'bigint'], ['spent_sun', 'bigint'], ['refunded_sun', 'bigint'], ['orders_created', 'integer'],
  ['energy_delegated', 'bigint'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz'], ['email', 'text'],
  ['deposit_address', 'text'], ['deposit_index', 'integer'], ['deposit_issued_at', 'timestamptz'],
  ['retired_deposit_addresses', 'jsonb'], ['low_balance_threshold_sun', 'bigint'],
] as const satisfies TypedColumns;

export const accountColumns = accountColumnTypes.map(([c]) => c);

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
