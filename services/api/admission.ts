/**
 * Admission control at the API's edge (issue #34, "sheds load instead of drowning"). An API process that
 * takes every request under overload queues them until callers give up: none is answered in time. Here
 * each request is admitted or answered `503 5030` with `Retry-After` at once, first thing in the app
 * (before the request id, the log line, authentication, body or database work: a 503 has stored and
 * charged nothing, and costs the process little), when accepting it would break the answer's deadline:
 *
 * - more requests working in this process than its concurrency limit: the limit follows the latency of
 *   the requests it admitted (`nextLimit`, below; an order's wait for its broadcast, a courtesy, is neither
 *   counted as working nor as latency: `releaseAdmission`). The queue that matters is mostly not in this process:
 *   an admitted order waits for the processor, PostgreSQL and the CPU the whole box shares; in flight is
 *   the only handle this process has on it, and the admitted requests' latency is what tells it too many
 *   are out. Bounded by `ADMISSION_MAX_IN_FLIGHT`;
 * - or the wait a new request can expect, requests in flight divided by the rate this process finishes
 *   them (Little's law, over the last window), past `ADMISSION_TARGET_MS`;
 * - or the event loop already that late (the CPU is the queue: every admitted request makes it later).
 *
 * Health and metrics routes are never shed. The decisions are `admissionDecision` and `nextLimit`, pure.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { RequestHandler, Response } from 'express';
import { randomId } from '../domain/ids';
import { errorCatalog } from '../domain/errors';
import { errorEnvelope, sendJson } from './errors';

export interface AdmissionLimits {
  maxInFlight: number;
  targetMs: number;
  /** The admitted requests' median latency (ms) the concurrency limit steers to. */
  latencyMs: number;
}

export interface AdmissionState {
  inFlight: number;
  /** The concurrency limit in force (`nextLimit`); at most `maxInFlight`. */
  limit: number;
  /** Requests this process finished per second lately; null until it has finished enough to say. */
  finishedPerSecond: number | null;
  /** The event loop's recent delay (ms). */
  loopDelayMs: number;
}

export type Admission =
  | { admit: true }
  | { admit: false; retryAfterSeconds: number; reason: 'in_flight' | 'concurrency' | 'expected_wait' | 'loop_delay' };

/** Whether one more request fits, given what this process is doing now. */
export function admissionDecision(state: AdmissionState, limits: AdmissionLimits): Admission {
  const waitMs = state.finishedPerSecond !== null && state.finishedPerSecond > 0 ? (state.inFlight / state.finishedPerSecond) * 1_000 : 0;
  const retryAfterSeconds = Math.max(1, Math.ceil(Math.max(waitMs, state.loopDelayMs) / 1_000));
  if (state.inFlight >= limits.maxInFlight) return { admit: false, retryAfterSeconds, reason: 'in_flight' };
  if (state.inFlight >= state.limit) return { admit: false, retryAfterSeconds, reason: 'concurrency' };
  if (waitMs > limits.targetMs) return { admit: false, retryAfterSeconds, reason: 'expected_wait' };
  if (state.loopDelayMs > limits.targetMs) return { admit: false, retryAfterSeconds, reason: 'loop_delay' };
  return { admit: true };
}

/** What one window of admitted requests showed. */
export interface LimitWindow {
  /** Median latency (ms) of the requests that finished in the window; null when too few finished to say. */
  p50Ms: number | null;
  /** Most requests in flight at once during the window. */
  peakInFlight: number;
  /** How long (ms) the oldest request still in flight has been: with too few finished, the latency is at least that. */
  oldestMs: number;
  /** The event loop's delay, 99th percentile over the window (ms): requests wait that long before they are even read. */
  loopDelayP99Ms: number;
  /** The lowest median of the last windows (ms; 0 before any): the latency without a queue. */
  floorMs: number;
}

/** The limit never goes below this: a few requests always go through, so the latency keeps being measured. */
export const MIN_LIMIT = 4;
/** Fewer finished requests than this in a window say nothing about the latency. */
export const MIN_SAMPLES = 10;

/**
 * The next concurrency limit. Too slow means queueing: the median past the target and past twice the
 * floor (the lowest median of the last windows: what the pipeline takes with no queue; on a loaded machine
 * it alone can pass the target, and fewer admitted would not make it faster, only fewer answered); with too
 * few finished to say, the oldest in flight standing for the median; or the event loop late by more than
 * the target. Then, at the same rate, Little's law says concurrency × bound / latency would meet the bound,
 * taken from the concurrency really reached (a nominal limit far above it would take many windows to come
 * down); at most halved per window, as a window's median is noisy. Fast enough and the limit reached: up by
 * a quarter (at least MIN_LIMIT): a limit cut by one slow window is back within a second. Otherwise (the
 * limit not what bounds the queue) unchanged, so a quiet spell does not let the next burst in all at once
 * past a limit that had been learned.
 */
export function nextLimit(limit: number, w: LimitWindow, limits: AdmissionLimits): number {
  const starved = w.p50Ms === null && w.peakInFlight >= MIN_LIMIT ? w.oldestMs : 0;
  const median = Math.max(w.p50Ms ?? 0, starved);
  const bound = Math.max(limits.latencyMs, 2 * w.floorMs);
  const bounded = (n: number) => Math.max(MIN_LIMIT, Math.min(limits.maxInFlight, Math.floor(n)));
  const late = median > bound ? median / bound : w.loopDelayP99Ms > limits.latencyMs ? w.loopDelayP99Ms / limits.latencyMs : 0;
  if (late > 0) {
    const base = Math.min(limit, Math.max(w.peakInFlight, MIN_LIMIT));
    return bounded(Math.max(base / 2, Math.min(base * 0.9, base / late)));
  }
  const fast = w.p50Ms !== null && w.p50Ms <= Math.max(limits.latencyMs, 1.5 * w.floorMs);
  if (fast && w.peakInFlight >= limit * 0.9) return bounded(limit + Math.max(MIN_LIMIT, limit / 4));
  return bounded(limit);
}

/** Paths never shed: a load balancer's and a scraper's probes must see the process as it is. */
const ALWAYS = new Set(['/healthz', '/readyz', '/metrics']);

const SHED_MESSAGE = 'The service is at capacity; nothing was stored or charged. Retry after the time in Retry-After.';

/**
 * The 503 5030 envelope (contract section 1, with the X-Request-Id header every answer carries) without
 * the app's error path (its check of the operation's declared codes matches the route per answer; every
 * operation declares 5030): under overload most answers are these. The body is not read: node discards
 * what is left of it after the answer and keeps the connection.
 */
function shed(res: Response, reason: string, retryAfterSeconds: number): void {
  const id = randomId('request');
  res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('X-Request-Id', id);
  sendJson(res, errorCatalog.service_unavailable.http, errorEnvelope('service_unavailable', SHED_MESSAGE, { reason }, id));
}

/** A window lasts at least this many ms, and until MIN_SAMPLES requests finished in it or WINDOW_MAX_MS passed. */
const WINDOW_MS = 250;
const WINDOW_MAX_MS = 1_000;
/** The floor is the lowest median of this many windows (some seconds: it follows a machine that got slower). */
const FLOOR_WINDOWS = 40;
/**
 * Each window moves the median and the finish rate this far toward its own figures (a time constant of
 * about a second): one window's swing with the pipeline's batches (a slow commit, a GC pause) cut the limit
 * at normal load; a second is still well inside the 2 s a refusal has to come early.
 */
const SMOOTHING = 0.3;
const RELEASE = 'admissionRelease';

/**
 * The request's work is done, what is left is a courtesy (the answer waits for the chain, one poll for all
 * such answers): its slot is free and its latency counted now. Without the gate, nothing.
 */
export function releaseAdmission(res: { locals: Record<string, unknown> }): void {
  (res.locals[RELEASE] as (() => void) | undefined)?.();
}

/**
 * How often the loop's lateness is sampled (ms). Each sample is a timer wake-up: at 10 ms they cost an idle
 * API process 0.7 % of a core (bench/README.md, "Idle CPU"); the limits it is held to are hundreds of ms.
 */
const LOOP_SAMPLE_MS = 100;
/** The histogram records each whole interval between samples: the lateness is what exceeds the interval. */
const lateMs = (intervalNs: number) => Math.max(0, intervalNs / 1e6 - LOOP_SAMPLE_MS);

export function admissionGate(limits: AdmissionLimits, onShed: (reason: string) => void = () => {}): RequestHandler {
  const delay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  delay.enable();
  /** Admitted and still working, in the order admitted: the first is the oldest. */
  const working = new Map<object, number>();
  let limit = limits.maxInFlight;
  let latencies: number[] = [];
  let smoothed: number | null = null;
  const medians: number[] = [];
  let windows = 0;
  let peak = 0;
  let windowStart = performance.now();
  let finishedPerSecond: number | null = null;
  let loopDelayMs = 0;
  const roll = (now: number) => {
    const elapsed = now - windowStart;
    const finished = latencies.length;
    if (elapsed < WINDOW_MS || (finished < MIN_SAMPLES && elapsed < WINDOW_MAX_MS)) return;
    latencies.sort((a, b) => a - b);
    // Smoothed over windows (SMOOTHING).
    const p50 = finished >= MIN_SAMPLES ? latencies[finished >> 1] : null;
    smoothed = p50 === null ? smoothed : smoothed === null ? p50 : smoothed + SMOOTHING * (p50 - smoothed);
    const p50Ms = p50 === null ? null : smoothed;
    if (p50 !== null) medians[windows++ % FLOOR_WINDOWS] = p50;
    const floorMs = windows === 0 ? 0 : Math.min(...medians.slice(0, Math.min(windows, FLOOR_WINDOWS)));
    const oldest = working.values().next();
    limit = nextLimit(limit, { p50Ms, peakInFlight: peak, oldestMs: oldest.done ? 0 : now - oldest.value, loopDelayP99Ms: lateMs(delay.percentile(99)), floorMs }, limits);
    // Smoothed too: the processor's replies come a slice at a time, so one window counts a slice's answers or none.
    const rate = (finished * 1_000) / elapsed;
    finishedPerSecond = finished >= MIN_SAMPLES
      ? finishedPerSecond === null ? rate : finishedPerSecond + SMOOTHING * (rate - finishedPerSecond)
      : working.size > 0 ? finishedPerSecond : null;
    loopDelayMs = lateMs(delay.mean);
    delay.reset();
    latencies = [];
    peak = working.size;
    windowStart = now;
  };
  return (req, res, next) => {
    if (ALWAYS.has(req.path)) return next();
    const now = performance.now();
    roll(now);
    const decision = admissionDecision({ inFlight: working.size, limit, finishedPerSecond, loopDelayMs }, limits);
    if (!decision.admit) {
      onShed(decision.reason);
      return shed(res, decision.reason, decision.retryAfterSeconds);
    }
    working.set(res, now);
    if (working.size > peak) peak = working.size;
    const release = () => {
      if (!working.delete(res)) return;
      latencies.push(performance.now() - now);
    };
    res.locals[RELEASE] = release;
    res.once('close', release);
    next();
  };
}
