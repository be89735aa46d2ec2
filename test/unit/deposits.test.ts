/** Deposit pricing and the credit handler: rate from slot0, spread, bounds, held and pending branches. */
import type { Account } from '../../services/domain/account';
import { emptyIdentity, emptyTotals } from '../../services/domain/account';
import { applyCommand } from '../../services/domain/apply';
import type { Command, CommandOf } from '../../services/domain/commands';
import {
  addressStanding, decideDeposit, rateAfterSpread, sunForUsdt, sunPerUsdtFromDecimal, sunPerUsdtFromSqrtPrice, usdtDecimal, type Deposit,
} from '../../services/domain/deposits';
import { assertBalanced } from '../../services/domain/ledger';

const ctx = { network: 'nile' as const, brand: 'energy' };
const Q96 = 1n << 96n;

function isqrt(n: bigint): bigint {
  // Newton from above (2^(bits/2+1) ≥ √n) converges to the floor.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

function account(over: Partial<Account> = {}): Account {
  return {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'unfunded', balanceSun: 0n, balanceUsdt: 0n,
    reservedSun: 0n, totals: emptyTotals(), ...emptyIdentity(), depositAddress: 'TAddrCurrent', depositIndex: 1, createdAt: 0, updatedAt: 0, ...over,
  };
}

function credit(over: Partial<CommandOf<'deposit.credit'>> = {}): CommandOf<'deposit.credit'> {
  return {
    type: 'deposit.credit', commandId: 'cmd_1', accountId: 'acc_1', issuedAt: 1_000, deadlineAt: null, replyTo: null,
    depositId: 'tx1:0', asset: 'USDT', address: 'TAddrCurrent', sender: 'TSender', txid: 'tx1', logIndex: 0, blockNumber: 7, blockTimestamp: 500,
    amount: 10_000_000n, confirmationsRequired: 19, rateSun: 3_500_000n, rateSource: 'dex_v3@6', spreadBps: 5, usdtMin: 5_000_000n,
    usdtMax: 2_000_000_000n, minDepositSun: 1_000_000n, ...over,
  };
}

function run(acc: Account, command: Command, deposits: Deposit[] = []) {
  const byId = new Map(deposits.map((d) => [d.depositId, d]));
  return applyCommand({ account: (id) => (id === acc.id ? acc : undefined), deposit: (id) => byId.get(id) }, command as never, ctx);
}

describe('USDT pricing', () => {
  it('reads SUN per USDT from slot0 whichever token is token0', () => {
    // 3.5 TRX per USDT: price = 3.5 (USDT token0) or 1/3.5 (WTRX token0).
    expect(sunPerUsdtFromSqrtPrice(isqrt((35n << 192n) / 10n), true)).toBe(3_499_999n);
    expect(sunPerUsdtFromSqrtPrice(isqrt((10n << 192n) / 35n) + 1n, false)).toBeGreaterThanOrEqual(3_499_999n);
    expect(sunPerUsdtFromSqrtPrice(Q96, true)).toBe(1_000_000n);
    expect(sunPerUsdtFromSqrtPrice(0n, true)).toBeNull();
  });

  it('takes the spread off the rate and floors', () => {
    expect(rateAfterSpread(3_500_000n, 5)).toBe(3_498_250n);
    expect(sunForUsdt(10_000_000n, 3_498_250n)).toBe(34_982_500n);
    expect(sunForUsdt(1n, 3_498_250n)).toBe(3n);
    expect(sunPerUsdtFromDecimal('3.5')).toBe(3_500_000n);
    expect(usdtDecimal(12_500_000n)).toBe('12.5');
    expect(usdtDecimal(1n)).toBe('0.000001');
  });

  it('holds below min, above max, waits without a rate', () => {
    const pricing = credit();
    expect(decideDeposit(credit({ amount: 4_999_999n }), pricing, 'current')).toEqual({ kind: 'hold', status: 'held_below_min' });
    expect(decideDeposit(credit({ amount: 2_000_000_001n }), pricing, 'current')).toEqual({ kind: 'hold', status: 'held_for_review' });
    expect(decideDeposit(credit(), { ...pricing, rateSun: null }, 'current')).toEqual({ kind: 'hold', status: 'pending_rate' });
    expect(decideDeposit(credit({ amount: 2_000_000_000n }), pricing, 'current')).toMatchObject({ kind: 'credit', amountSun: 6_996_500_000n });
    expect(decideDeposit(credit({ asset: 'TRX', amount: 999_999n }), pricing, 'current')).toEqual({ kind: 'hold', status: 'unclaimed_residual' });
    expect(decideDeposit(credit({ asset: 'TRX', amount: 1_000_000n }), pricing, 'retired_past_window')).toEqual({ kind: 'hold', status: 'held_retired_address' });
  });

  it('knows current, retired-in-window and retired-past-window addresses', () => {
    const acc = account({ retiredDepositAddresses: [{ address: 'TOld', derivationIndex: 0, retiredAt: 0, creditedUntil: 1_000 }] });
    expect(addressStanding(acc, 'TAddrCurrent', 5)).toBe('current');
    expect(addressStanding(acc, 'TOld', 1_000)).toBe('retired_in_window');
    expect(addressStanding(acc, 'TOld', 1_001)).toBe('retired_past_window');
    expect(addressStanding(acc, 'TOther', 5)).toBe('unknown');
  });
});

describe('the deposit credit handler', () => {
  it('credits USDT with a balanced 4-line journal, activates the account, emits balance.credited', () => {
    const outcome = run(account(), credit());
    if (outcome.kind !== 'applied') throw new Error('rejected');
    const [updated] = outcome.effects.accounts;
    expect(updated).toMatchObject({ balanceSun: 34_982_500n, status: 'active' });
    expect(updated.totals.depositedSun).toBe(34_982_500n);
    const [journal] = outcome.effects.journals;
    expect(() => assertBalanced(journal)).not.toThrow();
    expect(journal.lines).toHaveLength(4);
    expect(outcome.effects.deposits?.[0]).toMatchObject({ status: 'credited', rate: 3_498_250n, rateSource: 'dex_v3@6', journalId: journal.id });
    expect(outcome.effects.events[0].data).toMatchObject({ reason: 'deposit', asset: 'USDT', usdt_amount: '10', rate: '3498250', rate_source: 'dex_v3@6', spread_bps: 5, balance_sun: null, confirmations: null, block_number: 7 });
  });

  it('holds without an event, then credits on release', () => {
    const held = run(account(), credit({ rateSun: null, rateSource: null }));
    if (held.kind !== 'applied') throw new Error('rejected');
    expect(held.effects.events).toEqual([]);
    expect(held.effects.accounts).toEqual([]);
    const row = held.effects.deposits![0];
    expect(row.status).toBe('pending_rate');
    const release: Command = {
      type: 'deposit.release', commandId: 'cmd_2', accountId: 'acc_1', issuedAt: 2_000, deadlineAt: null, replyTo: null,
      depositId: row.depositId, reason: 'rate', rateSun: 3_000_000n, rateSource: 'fixed_env', spreadBps: 0, memo: null,
    };
    const released = run(account(), release, [row]);
    if (released.kind !== 'applied') throw new Error('rejected');
    expect(released.effects.accounts[0].balanceSun).toBe(30_000_000n);
    expect(released.effects.events).toHaveLength(1);
    // Released again (a duplicate, or support after the rate): nothing more.
    const again = run(account(), { ...release, commandId: 'cmd_3' }, released.effects.deposits);
    expect(again.kind === 'applied' && again.effects.journals).toEqual([]);
  });

  it('ignores a deposit it already recorded and refuses an address not the account\'s', () => {
    const first = run(account(), credit());
    if (first.kind !== 'applied') throw new Error('rejected');
    const again = run(account(), credit({ commandId: 'cmd_9' }), first.effects.deposits);
    expect(again.kind === 'applied' && again.effects.journals).toEqual([]);
    expect(run(account(), credit({ address: 'TNotMine' })).kind).toBe('rejected');
  });
});
