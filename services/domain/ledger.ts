/**
 * Double-entry journals. Every journal's lines sum to zero per currency; a customer's balance is the
 * sum of the lines on its balance account. Amounts are signed: positive lines credit the named account.
 */
export type Currency = 'TRX' | 'USDT';

export const ledgerKinds = [
  'deposit', 'order_charge', 'order_refund', 'referral_payout', 'subscription_fee', 'subscription_usage',
  'reserve_fee', 'invoice', 'withdrawal', 'adjustment',
] as const;
export type LedgerKind = (typeof ledgerKinds)[number];

/** Ledger accounts, named once. Customer accounts hold what the service owes the customer. */
export const ledgerAccounts = {
  customerTrx: (accountId: string) => `customer:${accountId}:trx`,
  customerUsdt: (accountId: string) => `customer:${accountId}:usdt`,
  supportAdjustments: 'system:support_adjustments',
  /** Where deposits come from: TRX received on deposit addresses, and USDT received. */
  depositsTrx: 'system:deposits_trx',
  depositsUsdt: 'system:deposits_usdt',
  /** USDT converted to TRX at the credited rate: takes USDT in, gives TRX out (balances per currency). */
  usdtConversion: 'system:usdt_conversion',
  /** What delivered orders earned; refunds of delivered orders come back out of it. */
  orderRevenue: 'system:order_revenue',
  /** The routing fee part of provider-routed orders (docs/routing-fee.md); its refunds come back out of it. */
  routingFees: 'system:routing_fees',
  /** TRX the service burns on chain for its own transactions it charges for (the bandwidth of a desk return). */
  networkFees: 'system:network_fees',
} as const;

export interface JournalLine {
  ledgerAccount: string;
  currency: Currency;
  amount: bigint;
}

export interface Journal {
  id: string;
  accountId: string;
  kind: LedgerKind;
  commandId: string;
  orderId: string | null;
  memo: string | null;
  createdAt: number;
  lines: JournalLine[];
}

export class UnbalancedJournalError extends Error {}

/** Net effect on one ledger account, per currency. */
export function netFor(journal: Journal, ledgerAccount: string, currency: Currency): bigint {
  return journal.lines
    .filter((l) => l.ledgerAccount === ledgerAccount && l.currency === currency)
    .reduce((sum, l) => sum + l.amount, 0n);
}

export function assertBalanced(journal: Journal): Journal {
  const sums = new Map<Currency, bigint>();
  for (const line of journal.lines) sums.set(line.currency, (sums.get(line.currency) ?? 0n) + line.amount);
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new UnbalancedJournalError(`journal ${journal.id} does not balance in ${currency}: ${sum}`);
  }
  if (journal.lines.length < 2) throw new UnbalancedJournalError(`journal ${journal.id} needs at least two lines`);
  return journal;
}

/** A journal moving `amount` from one ledger account to another. */
export function transferJournal(
  base: Omit<Journal, 'lines'>,
  currency: Currency,
  from: string,
  to: string,
  amount: bigint,
): Journal {
  return assertBalanced({
    ...base,
    lines: [
      { ledgerAccount: from, currency, amount: -amount },
      { ledgerAccount: to, currency, amount },
    ],
  });
}

/** A journal from signed lines (positive credits the account); zero lines are left out. */
export function linesJournal(base: Omit<Journal, 'lines'>, currency: Currency, lines: Array<[ledgerAccount: string, amount: bigint]>): Journal {
  return assertBalanced({
    ...base,
    lines: lines.filter(([, amount]) => amount !== 0n).map(([ledgerAccount, amount]) => ({ ledgerAccount, currency, amount })),
  });
}

/**
 * An order's revenue journal: `amount` from the customer into revenue (`charge`), or back (a refund), of
 * which `fee` belongs to the routing fee's own account. Without a fee it is the plain two-line transfer.
 */
export function revenueJournal(base: Omit<Journal, 'lines'>, customer: string, amount: bigint, fee: bigint, charge: boolean): Journal {
  const { orderRevenue, routingFees } = ledgerAccounts;
  if (fee === 0n) return charge ? transferJournal(base, 'TRX', customer, orderRevenue, amount) : transferJournal(base, 'TRX', orderRevenue, customer, amount);
  return linesJournal(base, 'TRX', charge
    ? [[customer, -amount], [orderRevenue, amount - fee], [routingFees, fee]]
    : [[orderRevenue, -(amount - fee)], [routingFees, -fee], [customer, amount]]);
}
