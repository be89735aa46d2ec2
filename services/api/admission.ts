/**
 * Admission control at the API's edge (issue #34, "sheds load instead of drowning"). An API process that
 * takes every request under overload queues them until callers give up: none is answered in time. Here
 * each request is admitted or answered `503 5030` with `Retry-After` at once, before any authentication,
 * body or database work (so a 503 has stored and charged nothing), when accepting it would break the
 * answer's deadline:
 *
 * - more requests in flight in this process than `ADMISSION_MAX_IN_FLIGHT` (a hard bound on the queue);
 * - or the wait a new request can expect, requests in flight divided by the rate this process finishes
 *   them (Little's law, over the last second or so), past `ADMISSION_TARGET_MS`;
 * - or the event loop already that late (the CPU is the queue: every admitted request makes it later).
 *
 * Health and metrics routes are never shed. The decision is `admissionDecision`, pure.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import { ApiError, sendError } from './errors';

export interface AdmissionLimits {
  maxInFlight: number;
  targetMs: number;
}

export interface AdmissionState {
  inFlight: number;
  /** Requests this process finished per second lately; null until it has finished enough to say. */
  finishedPerSecond: number | null;
  /** The event loop's recent delay (ms). */
  loopDelayMs: number;
}

export type Admission = { admit: true } | { admit: false; retryAfterSeconds: number; reason: 'in_flight' | 'expected_wait' | 'loop_delay' };

/** Whether one more request fits, given what this process is doing now. */
export function admissionDecision(state: AdmissionState, limits: AdmissionLimits): Admission {
  const waitMs = state.finishedPerSecond !== null && state.finishedPerSecond > 0 ? (state.inFlight / state.finishedPerSecond) * 1_000 : 0;
  const retryAfterSeconds = Math.max(1, Math.ceil(Math.max(waitMs, state.loopDelayMs) / 1_000));
  if (state.inFlight >= limits.maxInFlight) return { admit: false, retryAfterSeconds, reason: 'in_flight' };
  if (waitMs > limits.targetMs) return { admit: false, retryAfterSeconds, reason: 'expected_wait' };
  if (state.loopDelayMs > limits.targetMs) return { admit: false, retryAfterSeconds, reason: 'loop_delay' };
  return { admit: true };
}

/** Paths never shed: a load balancer's and a scraper's probes must see the process as it is. */
const ALWAYS = new Set(['/healthz', '/readyz', '/metrics']);

/** The rate is taken over windows of this many ms; the state is read again at most this often. */
const WINDOW_MS = 1_000;
/** Fewer finished requests than this in a window says nothing about the rate. */
const MIN_FINISHED = 20;

export function admissionGate(limits: AdmissionLimits, onShed: (reason: string) => void = () => {}): RequestHandler {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let inFlight = 0;
  let finished = 0;
  let windowStart = performance.now();
  let finishedPerSecond: number | null = null;
  let loopDelayMs = 0;
  const roll = (now: number) => {
    const elapsed = now - windowStart;
    if (elapsed < WINDOW_MS) return;
    finishedPerSecond = finished >= MIN_FINISHED ? (finished * 1_000) / elapsed : inFlight > 0 ? finishedPerSecond : null;
    loopDelayMs = delay.mean / 1e6;
    delay.reset();
    finished = 0;
    windowStart = now;
  };
  return (req, res, next) => {
    if (ALWAYS.has(req.path)) return next();
    roll(performance.now());
    const decision = admissionDecision({ inFlight, finishedPerSecond, loopDelayMs }, limits);
    if (!decision.admit) {
      onShed(decision.reason);
      return sendError(res, new ApiError('service_unavailable', 'The service is at capacity; nothing was stored or charged. Retry after the time in Retry-After.', { reason: decision.reason }, { 'Retry-After': String(decision.retryAfterSeconds) }));
    }
    inFlight++;
    res.once('close', () => {
      inFlight--;
      finished++;
    });
    next();
  };
}
