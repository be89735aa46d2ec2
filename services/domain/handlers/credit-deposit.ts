import type { Account } from '../account';
import { balanceCredited } from '../balance-credited';
import type { CommandMeta, CommandOf } from '../commands';
import {
  addressStanding, decideDeposit, usdtCredit, usdtDecimal, type CreditDecision, type Deposit,
} from '../deposits';
import { domainError } from '../errors';
import { eventIdFor } from '../events';
import { derivedId } from '../ids';
import { assertBalanced, ledgerAccounts, type Journal } from '../ledger';
import { isInt64 } from '../money';
import { noEffects, rejected, type Handler, type Outcome } from '../outcome';

/** The double-entry journal of a credited deposit: TRX straight in; USDT in, converted, TRX out. */
function depositJournal(command: CommandMeta, account: Account, deposit: Deposit, amountSun: bigint): Journal {
  const base = {
    id: derivedId('journal', command.commandId), accountId: account.id, kind: 'deposit' as const, commandId: command.commandId,
    orderId: null, memo: `deposit ${deposit.depositId}`, createdAt: command.issuedAt,
  };
  const customer = ledgerAccounts.customerTrx(account.id);
  if (deposit.asset === 'TRX') {
    return assertBalanced({ ...base, lines: [
      { ledgerAccount: ledgerAccounts.depositsTrx, currency: 'TRX', amount: -amountSun },
      { ledgerAccount: customer, currency: 'TRX', amount: amountSun },
    ] });
  }
  return assertBalanced({ ...base, lines: [
    { ledgerAccount: ledgerAccounts.depositsUsdt, currency: 'USDT', amount: -deposit.amount },
    { ledgerAccount: ledgerAccounts.usdtConversion, currency: 'USDT', amount: deposit.amount },
    { ledgerAccount: ledgerAccounts.usdtConversion, currency: 'TRX', amount: -amountSun },
    { ledgerAccount: customer, currency: 'TRX', amount: amountSun },
  ] });
}

/** Credits a deposit row: journal, balance, totals, unfunded → active, and its one balance.credited. */
function credit(command: CommandMeta, account: Account, deposit: Deposit, decision: CreditDecision & { kind: 'credit' }): Outcome {
  const balanceSun = account.balanceSun + decision.amountSun;
  if (!isInt64(balanceSun)) return rejected(domainError('amount_out_of_range', 'The balance would overflow.'));
  const journal = depositJournal(command, account, deposit, decision.amountSun);
  const credited: Deposit = {
    ...deposit, status: 'credited', journalId: journal.id, amountSun: decision.amountSun, rate: decision.rate,
    rateSource: decision.rateSource, spreadBps: decision.spreadBps, creditedAt: command.issuedAt,
  };
  const updated: Account = {
    ...account,
    balanceSun,
    status: account.status === 'unfunded' ? 'active' : account.status,
    totals: { ...account.totals, depositedSun: account.totals.depositedSun + decision.amountSun },
    updatedAt: command.issuedAt,
  };
  const usdt = deposit.asset === 'USDT';
  const effects = { ...noEffects(), accounts: [updated], journals: [journal], deposits: [credited] };
  effects.events.push(balanceCredited(eventIdFor(command.commandId, 0), account.id, command.issuedAt, {
    reason: 'deposit', currency: deposit.asset, amount_sun: decision.amountSun, tx_hash: deposit.txid, reference_id: journal.id,
    asset: deposit.asset,
    usdt_amount: usdt ? usdtDecimal(deposit.amount) : null,
    rate: usdt && decision.rate !== null ? decision.rate.toString() : null,
    rate_source: usdt ? decision.rateSource : null,
    spread_bps: usdt ? decision.spreadBps : null,
    txid: deposit.txid, sender: deposit.sender, block_number: deposit.blockNumber,
  }));
  return { kind: 'applied', status: 201, body: depositBody(credited), effects };
}

function depositBody(d: Deposit): Record<string, unknown> {
  return { deposit_id: d.depositId, account_id: d.accountId, status: d.status, amount_sun: d.amountSun, journal_id: d.journalId };
}

/**
 * The watcher saw a confirmed deposit. The address must be the account's (current, or retired and the
 * block inside its credit window, else it is held); then it is credited, held or waits for a rate.
 * A deposit already recorded changes nothing (the command id dedups re-reads; this guards the rest).
 */
export const creditDeposit: Handler<CommandOf<'deposit.credit'>> = (state, command) => {
  const account = state.account(command.accountId);
  if (!account) return rejected(domainError('not_found', 'No such account.'));
  const known = state.deposit?.(command.depositId);
  if (known) return { kind: 'applied', status: 200, body: depositBody(known), effects: noEffects() };
  const standing = addressStanding(account, command.address, command.blockTimestamp);
  if (standing === 'unknown') return rejected(domainError('invalid_request', 'The address is not a deposit address of this account.', { field: 'address' }));

  const deposit: Deposit = {
    depositId: command.depositId, asset: command.asset, address: command.address, sender: command.sender, txid: command.txid,
    logIndex: command.logIndex, blockNumber: command.blockNumber, blockTimestamp: command.blockTimestamp, amount: command.amount,
    confirmationsRequired: command.confirmationsRequired, accountId: account.id, status: 'pending_rate', journalId: null,
    amountSun: 0n, rate: null, rateSource: null, spreadBps: null, seenAt: command.issuedAt, creditedAt: null,
  };
  const decision = decideDeposit(command, command, standing);
  if (decision.kind === 'credit') return credit(command, account, deposit, decision);
  const held: Deposit = { ...deposit, status: decision.status, spreadBps: command.asset === 'USDT' ? command.spreadBps : null };
  return { kind: 'applied', status: 202, body: depositBody(held), effects: { ...noEffects(), deposits: [held] } };
};

/** A held or pending_rate deposit credited: when a rate returns (watcher) or by support (ops credit-held). */
export const releaseDeposit: Handler<CommandOf<'deposit.release'>> = (state, command) => {
  const account = state.account(command.accountId);
  const deposit = state.deposit?.(command.depositId);
  if (!account || !deposit || deposit.accountId !== account.id) return rejected(domainError('not_found', 'No such deposit.'));
  if (deposit.status === 'credited' || (command.reason === 'rate' && deposit.status !== 'pending_rate')) {
    return { kind: 'applied', status: 200, body: depositBody(deposit), effects: noEffects() };
  }
  if (deposit.asset === 'TRX') return credit(command, account, deposit, { kind: 'credit', amountSun: deposit.amount, rate: null, rateSource: null, spreadBps: null });
  if (command.rateSun === null) return rejected(domainError('chain_unavailable', 'No USDT rate is available to credit this deposit.'));
  return credit(command, account, deposit, usdtCredit(deposit.amount, command.rateSun, command.rateSource, command.spreadBps));
};
