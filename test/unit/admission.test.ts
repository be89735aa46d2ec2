/** The API's admission decision and its concurrency limit (services/api/admission.ts): what is shed, why, the Retry-After it names, how the limit moves. */
import { admissionDecision, MIN_LIMIT, nextLimit, type LimitWindow } from '../../services/api/admission';

const limits = { maxInFlight: 100, targetMs: 1_500, latencyMs: 250 };

test('admitted while the queue is short and the process keeps up', () => {
  expect(admissionDecision({ inFlight: 0, limit: 100, finishedPerSecond: null, loopDelayMs: 0 }, limits)).toEqual({ admit: true });
  // 99 in flight at 300 finished per second: about 0.33 s to wait.
  expect(admissionDecision({ inFlight: 99, limit: 100, finishedPerSecond: 300, loopDelayMs: 20 }, limits)).toEqual({ admit: true });
  // Not measured yet (a quiet process): only the bounds apply.
  expect(admissionDecision({ inFlight: 99, limit: 100, finishedPerSecond: null, loopDelayMs: 0 }, limits)).toEqual({ admit: true });
});

test('shed at the bound, at the concurrency limit, when the expected wait passes the target, or when the event loop is already that late', () => {
  expect(admissionDecision({ inFlight: 100, limit: 100, finishedPerSecond: 10_000, loopDelayMs: 0 }, limits)).toMatchObject({ admit: false, reason: 'in_flight', retryAfterSeconds: 1 });
  expect(admissionDecision({ inFlight: 30, limit: 30, finishedPerSecond: 200, loopDelayMs: 0 }, limits)).toEqual({ admit: false, reason: 'concurrency', retryAfterSeconds: 1 });
  expect(admissionDecision({ inFlight: 29, limit: 30, finishedPerSecond: 200, loopDelayMs: 0 }, limits)).toEqual({ admit: true });
  // 60 in flight at 20 per second: 3 s expected; Retry-After says so.
  expect(admissionDecision({ inFlight: 60, limit: 1_000, finishedPerSecond: 20, loopDelayMs: 0 }, { ...limits, maxInFlight: 1_000 }))
    .toEqual({ admit: false, reason: 'expected_wait', retryAfterSeconds: 3 });
  expect(admissionDecision({ inFlight: 1, limit: 100, finishedPerSecond: 1_000, loopDelayMs: 2_400 }, limits)).toEqual({ admit: false, reason: 'loop_delay', retryAfterSeconds: 3 });
});

const window = (w: Partial<LimitWindow>): LimitWindow => ({ p50Ms: 100, peakInFlight: 50, oldestMs: 80, loopDelayP99Ms: 10, floorMs: 0, ...w });

test('too slow: the limit comes down to what the concurrency reached would need to meet the target, at most halved', () => {
  // 80 in flight at a 400 ms median: 80 × 250 / 400 = 50 meets the target at the same rate.
  expect(nextLimit(100, window({ p50Ms: 400, peakInFlight: 80 }), limits)).toBe(50);
  // A nominal limit far above what was reached comes down from what was reached, not by a step from itself.
  expect(nextLimit(1_000, window({ p50Ms: 300, peakInFlight: 60 }), { ...limits, maxInFlight: 1_000 })).toBe(50);
  // Far too slow: halved, not cut to 250/5000 of itself in one window (one window's median is noisy).
  expect(nextLimit(100, window({ p50Ms: 5_000, peakInFlight: 100 }), limits)).toBe(50);
  // Just past the target: down at least a tenth.
  expect(nextLimit(100, window({ p50Ms: 251, peakInFlight: 100 }), limits)).toBe(90);
  // Never below the floor, so some requests keep being measured.
  expect(nextLimit(5, window({ p50Ms: 5_000, peakInFlight: 5 }), limits)).toBe(MIN_LIMIT);
});

test('a slow machine is not a queue: past the target but within twice the floor (the latency of the last windows at their best), not cut', () => {
  // The pipeline takes 300 ms here whatever is admitted: a 400 ms median is no queue, and still fast enough to grow.
  expect(nextLimit(40, window({ p50Ms: 400, peakInFlight: 40, floorMs: 300 }), limits)).toBe(50);
  // Between 1.5 and 2 floors: held.
  expect(nextLimit(40, window({ p50Ms: 500, peakInFlight: 40, floorMs: 300 }), limits)).toBe(40);
  // Past twice the floor: queueing, cut toward 2 × floor: 40 × 600 / 800 = 30.
  expect(nextLimit(40, window({ p50Ms: 800, peakInFlight: 40, floorMs: 300 }), limits)).toBe(30);
});

test('the event loop late, or requests in flight and none finishing, count as too slow', () => {
  expect(nextLimit(100, window({ p50Ms: 20, peakInFlight: 100, loopDelayP99Ms: 500 }), limits)).toBe(50);
  // Too few finished to say, and the oldest in flight working for 1 s: the latency is at least that.
  expect(nextLimit(100, window({ p50Ms: null, peakInFlight: 100, oldestMs: 1_000 }), limits)).toBe(50);
  // Too few finished, the oldest young: nothing learned, nothing changed (not even up: no median to say it is fast).
  expect(nextLimit(100, window({ p50Ms: null, peakInFlight: 100, oldestMs: 100 }), limits)).toBe(100);
  // A quiet process (few in flight, few finished) learns nothing and keeps its limit.
  expect(nextLimit(100, window({ p50Ms: null, peakInFlight: 3, oldestMs: 1_000 }), limits)).toBe(100);
});

test('fast enough: up by a quarter (at least MIN_LIMIT) while the limit is what bounds the queue, unchanged otherwise, never past the bound', () => {
  expect(nextLimit(40, window({ p50Ms: 100, peakInFlight: 40 }), limits)).toBe(50);
  expect(nextLimit(4, window({ p50Ms: 100, peakInFlight: 4 }), limits)).toBe(8);
  expect(nextLimit(40, window({ p50Ms: 100, peakInFlight: 20 }), limits)).toBe(40);
  expect(nextLimit(98, window({ p50Ms: 100, peakInFlight: 98 }), limits)).toBe(100);
});
