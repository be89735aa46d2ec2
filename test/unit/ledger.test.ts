import { applyCommand } from '../../services/domain/apply';
import type { Account } from '../../services/domain/account';
import { emptyIdentity, emptyTotals } from '../../services/domain/account';
import type { Command } from '../../services/domain/commands';
import { assertBalanced, ledgerAccounts, netFor, transferJournal, UnbalancedJournalError } from '../../services/domain/ledger';

const ctx = { network: 'nile' as const, brand: 'energy' };

function account(overrides: Partial<Account> = {}): Account {
  return {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'unfunded',
    balanceSun: 0n, balanceUsdt: 0n, reservedSun: 0n, totals: emptyTotals(), ...emptyIdentity(), createdAt: 1, updatedAt: 1, ...overrides,
  };
}

function adjust(amountSun: bigint, commandId = 'cmd_a'): Command {
  return { type: 'balance.adjust', commandId, accountId: 'acc_1', issuedAt: 1_700_000_000_000, deadlineAt: null, replyTo: null, amountSun, memo: 'support' };
}

const view = (a?: Account) => ({ account: (id: string) => (a && a.id === id ? a : undefined) });

describe('journals', () => {
  it('refuses a journal whose lines do not sum to zero', () => {
    expect(() =>
      assertBalanced({ id: 'j', accountId: 'a', kind: 'adjustment', commandId: 'c', orderId: null, memo: null, createdAt: 0,
        lines: [{ ledgerAccount: 'x', currency: 'TRX', amount: 5n }, { ledgerAccount: 'y', currency: 'TRX', amount: -4n }] }),
    ).toThrow(UnbalancedJournalError);
  });

  it('balances per currency, not across currencies', () => {
    expect(() =>
      assertBalanced({ id: 'j', accountId: 'a', kind: 'adjustment', commandId: 'c', orderId: null, memo: null, createdAt: 0,
        lines: [{ ledgerAccount: 'x', currency: 'TRX', amount: 5n }, { ledgerAccount: 'y', currency: 'USDT', amount: -5n }] }),
    ).toThrow(UnbalancedJournalError);
  });

  it('a transfer journal moves the amount from one account to the other', () => {
    const j = transferJournal({ id: 'j', accountId: 'a', kind: 'adjustment', commandId: 'c', orderId: null, memo: null, createdAt: 0 }, 'TRX', 'from', 'to', 7n);
    expect(netFor(j, 'to', 'TRX')).toBe(7n);
    expect(netFor(j, 'from', 'TRX')).toBe(-7n);
  });
});

describe('balance adjustment', () => {
  it('credits the balance with a balanced journal and a balance.credited event derived from the command', () => {
    const outcome = applyCommand(view(account()), adjust(2_500_000n) as never, ctx);
    expect(outcome.kind).toBe('applied');
    if (outcome.kind !== 'applied') return;
    const [journal] = outcome.effects.journals;
    expect(netFor(journal, ledgerAccounts.customerTrx('acc_1'), 'TRX')).toBe(2_500_000n);
    expect(outcome.effects.accounts[0].balanceSun).toBe(2_500_000n);
    const [event] = outcome.effects.events;
    expect(event.type).toBe('balance.credited');
    expect(event.data).toMatchObject({ reason: 'adjustment', amount_sun: 2_500_000n, balance_sun: 2_500_000n, reference_id: journal.id, tx_hash: null });
    // The same command gives the same ids: a replay re-emits what the live run did.
    const again = applyCommand(view(account()), adjust(2_500_000n) as never, ctx);
    expect(again.kind === 'applied' && again.effects.events[0].eventId).toBe(event.eventId);
    expect(again.kind === 'applied' && again.effects.journals[0].id).toBe(journal.id);
  });

  it('debits without an event, and never below the available balance', () => {
    const funded = account({ balanceSun: 1_000n, reservedSun: 400n });
    const ok = applyCommand(view(funded), adjust(-600n) as never, ctx);
    expect(ok.kind === 'applied' && ok.effects.accounts[0].balanceSun).toBe(400n);
    expect(ok.kind === 'applied' && ok.effects.events).toHaveLength(0);
    const tooMuch = applyCommand(view(funded), adjust(-601n) as never, ctx);
    expect(tooMuch).toEqual({ kind: 'rejected', error: expect.objectContaining({ slug: 'insufficient_funds' }) });
  });

  it('rejects a zero amount and an unknown account', () => {
    expect(applyCommand(view(account()), adjust(0n) as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'invalid_request' } });
    expect(applyCommand(view(), adjust(5n) as never, ctx)).toMatchObject({ kind: 'rejected', error: { slug: 'not_found' } });
  });

  it('keeps int64 exact beyond 2^53', () => {
    const big = 2n ** 60n;
    const outcome = applyCommand(view(account({ balanceSun: big })), adjust(1n) as never, ctx);
    expect(outcome.kind === 'applied' && outcome.effects.accounts[0].balanceSun).toBe(big + 1n);
    const overflow = applyCommand(view(account({ balanceSun: 2n ** 63n - 1n })), adjust(1n) as never, ctx);
    expect(overflow).toMatchObject({ kind: 'rejected', error: { slug: 'amount_out_of_range' } });
  });
});

describe('account creation', () => {
  const create = { type: 'account.create', commandId: 'cmd_c', accountId: 'acc_1', issuedAt: 5, deadlineAt: null, replyTo: null, brand: 'energy', network: 'nile', ownerAddress: null, displayName: null } as const;
  it('creates an unfunded account stamped with the command time', () => {
    const outcome = applyCommand(view(), create, ctx);
    expect(outcome).toMatchObject({ kind: 'applied', status: 201 });
    expect(outcome.kind === 'applied' && outcome.effects.accounts[0]).toMatchObject({ status: 'unfunded', createdAt: 5, balanceSun: 0n });
  });
  it('answers the existing account without changing it', () => {
    expect(applyCommand(view(account()), create, ctx)).toMatchObject({ kind: 'applied', status: 200, effects: { accounts: [] } });
  });
  it('refuses another network', () => {
    expect(applyCommand(view(), { ...create, network: 'mainnet' }, ctx)).toMatchObject({ kind: 'rejected' });
  });
});
