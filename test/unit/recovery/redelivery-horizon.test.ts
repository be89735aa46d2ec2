/** Where the webhook dispatcher resumes after a restore: the last redelivery window, none lost (issue 15, item 3). */
import { RedeliveryHorizon, REDELIVERY_WINDOW_MS } from '../../../services/ops/redelivery-horizon';

test('the window covers a primary schedule and the backup schedule that follows it (about 22 hours)', () => {
  expect(REDELIVERY_WINDOW_MS).toBeGreaterThan(21 * 3_600_000);
  expect(REDELIVERY_WINDOW_MS).toBeLessThan(23 * 3_600_000);
});

test('each partition resumes at its first record within the window of the newest record on any partition', () => {
  const h = new RedeliveryHorizon(100);
  // Partition 0: old records, then recent ones; partition 1: only old ones; partition 2: never written.
  for (const [offset, ts] of [[0n, 1_000], [1n, 1_050], [2n, 1_920], [3n, 1_990]] as const) h.see(0, offset, ts);
  for (const [offset, ts] of [[0n, 1_100], [1n, 1_500]] as const) h.see(1, offset, ts);
  h.see(0, 4n, 2_000);
  const start = h.startOffsets(new Map([[0, 5n], [1, 2n], [2, 0n]]));
  expect(start).toEqual(new Map([[0, 2n], [1, 2n], [2, 0n]]));
});

test('a record exactly at the horizon is delivered again; an empty topic resumes at its end', () => {
  const h = new RedeliveryHorizon(100);
  h.see(0, 7n, 900);
  h.see(0, 8n, 1_000);
  expect(h.startOffsets(new Map([[0, 9n]]))).toEqual(new Map([[0, 7n]]));
  expect(new RedeliveryHorizon(100).startOffsets(new Map([[0, 0n], [1, 0n]]))).toEqual(new Map([[0, 0n], [1, 0n]]));
});

test('many old records are passed without keeping them', () => {
  const h = new RedeliveryHorizon(10);
  for (let i = 0; i < 50_000; i += 1) h.see(0, BigInt(i), i);
  expect(h.startOffsets(new Map([[0, 50_000n]]))).toEqual(new Map([[0, 49_989n]]));
});
