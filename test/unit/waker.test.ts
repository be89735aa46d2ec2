/**
 * The relay's Waker: a wake-up cuts a sleep short; one that comes while the loop is at work (not asleep) is
 * kept for its next sleep, so a NOTIFY that arrived during a read that found nothing is not lost for a
 * whole idle wait; stopping ends every sleep at once.
 */
import { Waker } from '../../services/platform/waker';

const timed = async (p: Promise<void>) => {
  const started = performance.now();
  await p;
  return performance.now() - started;
};

test('a wake-up during a sleep ends it; one between sleeps skips the next; stop ends them for good', async () => {
  const waker = new Waker();
  const sleeping = timed(waker.sleep(10_000));
  waker.wake();
  expect(await sleeping).toBeLessThan(1_000);
  // Woken while at work: the next sleep returns at once, the one after waits again.
  waker.wake();
  expect(await timed(waker.sleep(10_000))).toBeLessThan(1_000);
  expect(await timed(waker.sleep(150))).toBeGreaterThanOrEqual(145);
  const last = timed(waker.sleep(10_000));
  waker.stop();
  expect(await last).toBeLessThan(1_000);
  expect(waker.running).toBe(false);
  expect(await timed(waker.sleep(10_000))).toBeLessThan(1_000);
});
