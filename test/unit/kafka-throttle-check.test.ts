/**
 * kafkajs' pending-request check of a queue that was never throttled (`throttledUntil` -1) asked for a
 * timer of minus the epoch (Node 24's TimeoutNegativeWarning in every integration run), and from then on a
 * 1 ms timer per connection for good. Loading the Kafka module clamps it (services/platform/kafka.ts); a
 * throttle still in force keeps its delay.
 */
import { clampKafkaThrottleCheck } from '../../services/platform/kafka';
import { realClock, scaledClock } from '../../services/platform/clock';

const RequestQueue = require('kafkajs/src/network/requestQueue');
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const newQueue = () => new RequestQueue({
  instrumentationEmitter: null, maxInFlightRequests: null, requestTimeout: 1_000, enforceRequestTimeout: true, clientId: 't', broker: 'b', logger: quiet,
});

afterEach(() => jest.restoreAllMocks());

test('an answer on a queue never throttled, with nothing waiting, makes no timer (it made a negative one, then one every ms)', () => {
  const timer = jest.spyOn(global, 'setTimeout');
  const queue = newQueue();
  queue.checkPendingRequests();
  const made = timer.mock.calls.length;
  clearTimeout(queue.throttleCheckTimeoutId ?? undefined);
  expect(made).toBe(0);
});

test('a throttle still in force keeps its delay; a queue with work waits the check interval once it is over', () => {
  const timer = jest.spyOn(global, 'setTimeout');
  const throttled = newQueue();
  throttled.throttledUntil = Date.now() + 5_000;
  throttled.scheduleCheckPendingRequests();
  expect(timer.mock.calls[0][1]).toBeGreaterThan(4_000);
  clearTimeout(throttled.throttleCheckTimeoutId);
  const busy = newQueue();
  busy.pending.push({});
  busy.throttledUntil = Date.now() - 1_000;
  busy.scheduleCheckPendingRequests();
  expect(timer.mock.calls[1][1]).toBe(10);
  clearTimeout(busy.throttleCheckTimeoutId);
});

test('the clamp is put in place once, and only over the unclamped kafkajs method', () => {
  expect(clampKafkaThrottleCheck()).toBe(false);
});

test('a wait for a moment already past is no wait, on the real clock as on a scaled one', () => {
  expect(realClock.realDelay(-1_795_379_869_712)).toBe(0);
  expect(scaledClock(4).realDelay(-5_000)).toBe(0);
});
