/**
 * PollingRole.wakeOn: a NOTIFY on the channel starts the next pass without waiting out the poll (here an
 * hour, so only a wake-up can run a second pass), also when it arrives during a pass; stop releases the
 * LISTEN connection once (a later connection error does not release it again).
 */
import { EventEmitter } from 'node:events';
import { idleWaitAfter, PollingRole } from '../../services/platform/polling-role';
import type { Pool } from '../../services/platform/db/pool';

class FakeClient extends EventEmitter {
  readonly queries: string[] = [];
  released = false;
  async query(sql: string) {
    this.queries.push(sql);
    return { rows: [] };
  }
  release() {
    if (this.released) throw new Error('Release called on client which has already been released to the pool.');
    this.released = true;
  }
}

function fakePool(client: FakeClient): Pool {
  return { connect: async () => client } as unknown as Pool;
}

test('a notification wakes the next pass, also one arriving during a pass', async () => {
  const client = new FakeClient();
  let passes = 0;
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  const until = (n: number) => new Promise<void>((resolve) => (passes >= n ? resolve() : waiting.push({ n, resolve })));
  const role = new PollingRole('test', 3_600_000, async () => {
    passes += 1;
    // The second pass is notified while it runs: a third must follow at once.
    if (passes === 2) client.emit('notification', { channel: 'order_work' });
    for (const w of waiting.filter((x) => passes >= x.n)) w.resolve();
  });
  role.wakeOn(fakePool(client), 'order_work').start();
  await until(1);
  expect(client.queries).toEqual(['LISTEN order_work']);
  expect(passes).toBe(1);

  client.emit('notification', { channel: 'order_work' });
  await until(3);
  expect(passes).toBe(3);

  await role.stop();
  expect(client.released).toBe(true);
  expect(passes).toBe(3);
  // The database going away after the stop: the connection's error does not release it again.
  expect(() => client.emit('error', new Error('terminating connection'))).not.toThrow();
});

test('idleBackOff: passes that found nothing space out, doubling up to the most; a wake-up or a pass with work puts the poll back', async () => {
  const at: number[] = [];
  let busy = false;
  const role = new PollingRole('test', 20, async () => {
    at.push(performance.now());
    return busy;
  }).idleBackOff(200);
  role.start();
  const until = async (n: number) => {
    while (at.length < n) await new Promise((r) => setTimeout(r, 5));
  };
  await until(5);
  const gaps = at.slice(1).map((t, i) => t - at[i]);
  // 40, 80, 160, 200 ms (timers fire late, never early): without the back-off these would be 20 ms each.
  expect(gaps[0]).toBeGreaterThanOrEqual(38);
  expect(gaps[1]).toBeGreaterThanOrEqual(78);
  expect(gaps[2]).toBeGreaterThanOrEqual(158);
  expect(gaps[3]).toBeGreaterThanOrEqual(198);
  expect(gaps[3]).toBeLessThan(400);
  // A wake-up runs the next pass at once, however long the wait had grown.
  const woke = performance.now();
  role.wake();
  await until(6);
  expect(at[5] - woke).toBeLessThan(100);
  // Passes with work poll at the interval again.
  busy = true;
  await until(8);
  const n = at.length;
  await new Promise((r) => setTimeout(r, 200));
  expect(at.length - n).toBeGreaterThanOrEqual(4);
  await role.stop();
});

test('idleWaitAfter: from the base, doubling, held at the most (the relay: 500 ms to 4 s)', () => {
  const waits: number[] = [];
  let last = 0;
  for (let i = 0; i < 6; i++) waits.push((last = idleWaitAfter(last, 500, 4_000)));
  expect(waits).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000]);
});
