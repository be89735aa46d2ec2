/**
 * Which orders get a broadcast report (`order.deliver` step broadcast, status `delegated`): only those a
 * POST /v1/orders answer may still be waiting for (services/domain/sync-wait.ts). Others go from
 * `allocating` to `confirmed` with one record less on the log.
 */
import { scaledClock } from '../../services/platform/clock';
import { mayAwaitBroadcast, SYNC_WAIT_SLACK_MS, syncWaitHorizonMs } from '../../services/domain/sync-wait';
import { orderSources } from '../../services/domain/orders/rules';

test('the horizon covers the processor deadline, the wait and the slack; none when answers never wait', () => {
  expect(syncWaitHorizonMs(10_000, 1_500)).toBe(10_000 + 1_500 + SYNC_WAIT_SLACK_MS);
  expect(syncWaitHorizonMs(10_000, 0)).toBe(0);
});

test('only orders placed through POST /v1/orders (api, dashboard), and only inside the horizon', () => {
  const horizon = syncWaitHorizonMs(10_000, 1_500);
  const awaited = orderSources.filter((source) => mayAwaitBroadcast({ source }, 0, horizon));
  expect(awaited).toEqual(['api', 'dashboard']);
  expect(mayAwaitBroadcast({ source: 'api' }, horizon, horizon)).toBe(true);
  expect(mayAwaitBroadcast({ source: 'api' }, horizon + 1, horizon)).toBe(false);
  expect(mayAwaitBroadcast({ source: 'dashboard' }, horizon + 1, horizon)).toBe(false);
  for (const source of ['batch', 'subscription', 'bot', 'transfer', 'proxy'] as const) expect(mayAwaitBroadcast({ source }, 0, horizon)).toBe(false);
  expect(mayAwaitBroadcast({ source: 'api' }, 0, syncWaitHorizonMs(10_000, 0))).toBe(false);
});

test('on a scaled clock the broadcaster converts to real ms, as the API waits in real ms', () => {
  // 60x: the processor deadline of 10 s clock is 167 real ms; an order 30 s old on the clock is 0.5 s old in real time.
  const clock = scaledClock(60, 1_700_000_000_000);
  const horizon = syncWaitHorizonMs(clock.realDelay(10_000), 1_500);
  expect(horizon).toBe(167 + 1_500 + SYNC_WAIT_SLACK_MS);
  expect(mayAwaitBroadcast({ source: 'api' }, clock.realDelay(30_000), horizon)).toBe(true);
  expect(mayAwaitBroadcast({ source: 'api' }, clock.realDelay(600_000), horizon)).toBe(false);
});
