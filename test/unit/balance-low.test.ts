import { emptyIdentity, emptyTotals, type Account } from '../../services/domain/account';
import { applyCommand } from '../../services/domain/apply';
import type { Command } from '../../services/domain/commands';

const ctx = { network: 'nile' as const, brand: 'energy' };

function account(overrides: Partial<Account> = {}): Account {
  return {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active',
    balanceSun: 10_000_000n, balanceUsdt: 0n, reservedSun: 0n, totals: emptyTotals(), ...emptyIdentity(),
    lowBalanceThresholdSun: 5_000_000n, createdAt: 1, updatedAt: 1, ...overrides,
  };
}

const view = (a: Account) => ({ account: (id: string) => (id === a.id ? a : undefined) });
function debit(amountSun: bigint, price: bigint | null = 40n): Command {
  return {
    type: 'balance.adjust', commandId: `cmd_${amountSun}`, accountId: 'acc_1', issuedAt: 1_700_000_000_000, deadlineAt: null,
    replyTo: null, amountSun, memo: 'x', ...(price === null ? {} : { energyPrice5mSun: price }),
  };
}
const lowEvents = (o: ReturnType<typeof applyCommand>) => (o.kind === 'applied' ? o.effects.events.filter((e) => e.type === 'balance.low') : []);

test('crossing below the threshold raises balance.low with the estimate at the 5m price for 65,000 energy', () => {
  const [event] = lowEvents(applyCommand(view(account()), debit(-6_000_000n) as never, ctx));
  // 4,000,000 available / (40 SUN x 65,000) = 1 order left.
  expect(event).toMatchObject({ type: 'balance.low', data: { balance_sun: 4_000_000n, threshold_sun: 5_000_000n, estimated_orders_remaining: 1n } });
  expect(event.eventId).toMatch(/^evt_/);
});

test('no event while staying above, when already below, or with the alert off', () => {
  expect(lowEvents(applyCommand(view(account()), debit(-5_000_000n) as never, ctx))).toHaveLength(0); // lands exactly on it
  expect(lowEvents(applyCommand(view(account({ balanceSun: 4_000_000n })), debit(-1_000_000n) as never, ctx))).toHaveLength(0);
  expect(lowEvents(applyCommand(view(account({ lowBalanceThresholdSun: null })), debit(-9_000_000n) as never, ctx))).toHaveLength(0);
});

test('reserved funds count: the available balance is what crosses', () => {
  const [event] = lowEvents(applyCommand(view(account({ reservedSun: 3_000_000n })), debit(-3_000_000n) as never, ctx));
  expect(event.data).toMatchObject({ balance_sun: 4_000_000n });
});

test('an unpriced command reports no estimate', () => {
  const [event] = lowEvents(applyCommand(view(account()), debit(-6_000_000n, null) as never, ctx));
  expect(event.data).toMatchObject({ estimated_orders_remaining: null });
});

test('setting the threshold never fires by itself and refuses a negative one', () => {
  const set = (thresholdSun: bigint | null) =>
    applyCommand(view(account({ lowBalanceThresholdSun: null, balanceSun: 1n })), { type: 'account.set_low_balance_alert', commandId: 'c', accountId: 'acc_1', issuedAt: 5, deadlineAt: null, replyTo: null, thresholdSun } as never, ctx);
  expect(lowEvents(set(5_000_000n))).toHaveLength(0);
  expect(set(5_000_000n)).toMatchObject({ kind: 'applied', effects: { accounts: [{ lowBalanceThresholdSun: 5_000_000n }] } });
  expect(set(-1n)).toMatchObject({ kind: 'rejected', error: { slug: 'invalid_request' } });
});
