/** The API's admission decision (services/api/admission.ts): what is shed, why, and the Retry-After it names. */
import { admissionDecision } from '../../services/api/admission';

const limits = { maxInFlight: 100, targetMs: 1_500 };

test('admitted while the queue is short and the process keeps up', () => {
  expect(admissionDecision({ inFlight: 0, finishedPerSecond: null, loopDelayMs: 0 }, limits)).toEqual({ admit: true });
  // 128 in flight at 300 finished per second: about 0.43 s to wait.
  expect(admissionDecision({ inFlight: 99, finishedPerSecond: 300, loopDelayMs: 20 }, limits)).toEqual({ admit: true });
  // Not measured yet (a quiet process): only the hard bound applies.
  expect(admissionDecision({ inFlight: 99, finishedPerSecond: null, loopDelayMs: 0 }, limits)).toEqual({ admit: true });
});

test('shed at the bound, when the expected wait passes the target, or when the event loop is already that late', () => {
  expect(admissionDecision({ inFlight: 100, finishedPerSecond: 10_000, loopDelayMs: 0 }, limits)).toMatchObject({ admit: false, reason: 'in_flight', retryAfterSeconds: 1 });
  // 60 in flight at 20 per second: 3 s expected; Retry-After says so.
  expect(admissionDecision({ inFlight: 60, finishedPerSecond: 20, loopDelayMs: 0 }, { maxInFlight: 1_000, targetMs: 1_500 }))
    .toEqual({ admit: false, reason: 'expected_wait', retryAfterSeconds: 3 });
  expect(admissionDecision({ inFlight: 1, finishedPerSecond: 1_000, loopDelayMs: 2_400 }, limits)).toEqual({ admit: false, reason: 'loop_delay', retryAfterSeconds: 3 });
});
