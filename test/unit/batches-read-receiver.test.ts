/**
 * The executor's pickup read (services/batches/executor.ts readReceiver): one chain read for an active
 * receiver whose bandwidth is wanted, and the same answers the two reads gave before.
 */
import { readReceiver, wantsBandwidth } from '../../services/batches/executor';

/** A chain of the given accounts (address -> resources reported, null: on chain without resources); counts the reads. */
function chain(accounts: Record<string, number | null>) {
  const calls: string[] = [];
  return {
    calls,
    account: async (address: string) => {
      calls.push(`account ${address}`);
      return { address, exists: address in accounts, balanceSun: 0n };
    },
    // As the node: `{}` (null here) for an address not on chain.
    bandwidthAvailable: async (address: string) => {
      calls.push(`resources ${address}`);
      return address in accounts ? accounts[address] : null;
    },
  };
}

const freeNetLimit = async () => 600;

test('an active receiver: one read (its resources) says active and what bandwidth it has', async () => {
  const c = chain({ TACTIVE: 1_234 });
  expect(await readReceiver(c, 'TACTIVE', true, freeNetLimit)).toEqual({ active: true, bandwidthFree: 1_234 });
  expect(c.calls).toEqual(['resources TACTIVE']);
  // Nothing left of its allowance is still an answer: 0, not a second read.
  const spent = chain({ TSPENT: 0 });
  expect(await readReceiver(spent, 'TSPENT', true, freeNetLimit)).toEqual({ active: true, bandwidthFree: 0 });
  expect(spent.calls).toEqual(['resources TSPENT']);
});

test('a receiver not on chain: not active, the free allowance it will get', async () => {
  const c = chain({});
  expect(await readReceiver(c, 'TNEW', true, freeNetLimit)).toEqual({ active: false, bandwidthFree: 600 });
  expect(c.calls).toEqual(['resources TNEW', 'account TNEW']);
});

test('on chain without resources reported: active, bandwidth unknown (a top-up), as when both were read', async () => {
  const c = chain({ TODD: null });
  expect(await readReceiver(c, 'TODD', true, freeNetLimit)).toEqual({ active: true, bandwidthFree: null });
});

test('bandwidth not wanted: only the account is read', async () => {
  for (const [accounts, active] of [[{ TA: 5 }, true], [{}, false]] as const) {
    const c = chain(accounts);
    const read = await readReceiver(c, 'TA', false, freeNetLimit);
    expect(read.active).toBe(active);
    expect(c.calls).toEqual(['account TA']);
  }
  expect(wantsBandwidth({ resource: 'energy', bandwidth: null })).toBe(true);
  expect(wantsBandwidth({ resource: 'energy', bandwidth: false })).toBe(false);
  expect(wantsBandwidth({ resource: 'bandwidth', bandwidth: true })).toBe(false);
  expect(wantsBandwidth({ resource: 'activation', bandwidth: null })).toBe(false);
});
