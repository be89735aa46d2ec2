/** Account and DepositAddress as the API answers them (spec section 2), from the processor's tables. */
import type { Account } from '../../domain/account';
import { rotationPolicy } from '../../domain/deposit-rotation';
import { usdtDecimal, type RateSource } from '../../domain/deposits';
import { accountLimits } from '../../domain/account';
import type { Config } from '../../platform/config';
import { toIso } from '../../platform/clock';


/** USDT deposit bounds as decimal strings (held below min, held for review above max), from USDT_MIN/USDT_MAX. */
export const usdtBounds = (cfg: Config) => ({ min: usdtDecimal(cfg.USDT_MIN), max: usdtDecimal(cfg.USDT_MAX) });

export const noRate: RateSource = async () => null;

export async function depositRows(cfg: Config, account: Account, rate: RateSource, currency?: 'TRX' | 'USDT') {
  if (!account.depositAddress) return [];
  const common = { address: account.depositAddress, memo: null, confirmations_required: cfg.DEPOSIT_CONFIRMATIONS };
  const rows = [];
  if (currency !== 'USDT') {
    rows.push({ currency: 'TRX', ...common, contract: null, rate_now: null, spread_bps: null, min: null, max: null });
  }
  if (currency !== 'TRX') {
    rows.push({
      currency: 'USDT', ...common, contract: cfg.USDT_CONTRACT ?? null, rate_now: await rate().catch(() => null),
      spread_bps: cfg.USDT_SPREAD_BPS, ...usdtBounds(cfg),
    });
  }
  return rows;
}

export function retiredRows(account: Account) {
  return account.retiredDepositAddresses.map((r) => ({ address: r.address, retired_at: toIso(r.retiredAt), credited_until: toIso(r.creditedUntil) }));
}

export { rotationPolicy };

export async function accountJson(cfg: Config, account: Account, rate: RateSource) {
  return {
    id: account.id,
    brand: account.brand,
    network: account.network,
    owner_address: account.ownerAddress,
    label: account.displayName,
    display_name: account.displayName,
    status: account.status,
    balance_sun: account.balanceSun,
    balance_usdt: account.balanceUsdt,
    reserved_sun: account.reservedSun,
    deposit_addresses: await depositRows(cfg, account, rate),
    limits: accountLimits,
    totals: {
      deposited_sun: account.totals.depositedSun,
      spent_sun: account.totals.spentSun,
      refunded_sun: account.totals.refundedSun,
      orders_created: account.totals.ordersCreated,
      energy_delegated: account.totals.energyDelegated,
    },
    created_at: toIso(account.createdAt),
  };
}
