/**
 * Load generation for the benchmarks: keep-alive HTTP over node:http, every request bounded by a
 * timeout, and every failure counted instead of thrown, so overload shows up as figures, never as a
 * crashed benchmark. Open loop (`offered`): requests leave on a fixed schedule whatever the answers do;
 * closed loop (`sustained`): N requests in flight, the next leaves when one is answered.
 */
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { percentile } from './figures';

export interface Outcome {
  ok: boolean;
  status: number | null;
  /** 'timeout' | 'error' | null */
  failure: 'timeout' | 'error' | null;
  ms: number;
  /** The answer's Server-Timing stages (services/api/stage-timing.ts), ms by name. */
  stages?: Record<string, number>;
  /** A connection error's code (ECONNRESET, ...), to tell the server's closes from this process's own. */
  errorCode?: string;
  /** A refusal's `error.details.reason`, if it names one. */
  reason?: string;
}

export type Send = (n: number) => Promise<Outcome>;

export interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export function httpSender(base: string, make: (n: number) => Request, okStatus: number, timeoutMs: number, maxSockets = 512): Send {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return (n) => {
    const r = make(n);
    const started = performance.now();
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const done = (status: number | null, failure: Outcome['failure'], timing?: string | string[], errorCode?: string, reason?: string) => {
        if (settled) return;
        settled = true;
        resolve({ ok: status === okStatus, status, failure, ms: performance.now() - started, stages: parseServerTiming(timing), errorCode, reason });
      };
      const req = http.request(
        { host: url.hostname, port: url.port, method: r.method, path: r.path, agent, headers: { ...r.headers, 'content-length': Buffer.byteLength(r.body) } },
        (res) => {
          // A refusal's body is kept for its reason (503 5030 details.reason: which admission rule shed it).
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => { if (res.statusCode !== okStatus) chunks.push(c); });
          res.on('end', () => done(res.statusCode ?? null, null, res.headers['server-timing'], undefined, chunks.length > 0 ? shedReason(Buffer.concat(chunks)) : undefined));
          res.on('error', (err: NodeJS.ErrnoException) => done(null, 'error', undefined, err.code ?? err.message));
        },
      );
      // A deadline on the whole exchange (queueing for a socket included), not just socket idleness.
      const timer = setTimeout(() => {
        done(null, 'timeout');
        req.destroy();
      }, timeoutMs);
      req.on('close', () => clearTimeout(timer));
      req.on('error', (err: NodeJS.ErrnoException) => done(null, 'error', undefined, err.code ?? err.message));
      req.end(r.body);
    });
  };
}

function shedReason(body: Buffer): string | undefined {
  try {
    // An admission refusal names its rule; any other error answer its slug (chain_unavailable, service_unavailable).
    const error = JSON.parse(body.toString()).error;
    const reason = error?.details?.reason ?? error?.slug;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}

/** `auth;dur=1.2, reply;dur=8` → { auth: 1.2, reply: 8 }; undefined without the header. */
function parseServerTiming(header: string | string[] | undefined): Record<string, number> | undefined {
  if (header === undefined) return undefined;
  const out: Record<string, number> = {};
  for (const part of String(header).split(',')) {
    const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}


export interface RunFigures {
  sent: number;
  ok: number;
  /** Answered, but not with the expected status. */
  wrongStatus: number;
  timeouts: number;
  errors: number;
  /** Connection errors by code. */
  errorCodes: Record<string, number>;
  /** Every answer's time (ok or not; timeouts and errors left out), p99 and max ms: issue 34's "answered within 2 s". */
  answered: { p99: number; max: number };
  /** Answers by status (the expected one included), a refusal with its reason. */
  statuses: Record<string, number>;
  /** ok answers per second over the run (until the last answer). */
  okPerSec: number;
  p50: number;
  p99: number;
  /** Server-side stages of the ok answers (Server-Timing): p50 and p99 per stage, ms. */
  stages: Record<string, { p50: number; p99: number }>;
  /**
   * Of the ok answers with stages: the client's time not in any server stage (queued before the app saw the
   * request or after it answered: sockets, the API process's event loop, this process's own), p50/p99 ms.
   */
  outside?: { p50: number; p99: number };
  /** This process's event-loop delay during the step, p50/p99 ms: high means the load generator itself lags. */
  loopDelay: { p50: number; p99: number };
}

function figures(outcomes: Outcome[], elapsedMs: number, loop: ReturnType<typeof monitorEventLoopDelay>): RunFigures {
  const ok = outcomes.filter((o) => o.ok);
  const times = ok.map((o) => o.ms).sort((a, b) => a - b);
  const outside = ok.filter((o) => o.stages).map((o) => o.ms - Object.values(o.stages!).reduce((a, b) => a + b, 0)).sort((a, b) => a - b);
  loop.disable();
  return {
    sent: outcomes.length,
    ok: ok.length,
    wrongStatus: outcomes.filter((o) => !o.ok && o.failure === null).length,
    timeouts: outcomes.filter((o) => o.failure === 'timeout').length,
    errors: outcomes.filter((o) => o.failure === 'error').length,
    errorCodes: countBy(outcomes.filter((o) => o.failure === 'error').map((o) => o.errorCode ?? '?')),
    answered: answeredFigures(outcomes),
    statuses: countBy(outcomes.filter((o) => o.status !== null).map((o) => (o.reason ? `${o.status} ${o.reason}` : String(o.status)))),
    okPerSec: ok.length / (elapsedMs / 1000),
    p50: Math.round(percentile(times, 50)),
    p99: Math.round(percentile(times, 99)),
    stages: stageFigures(ok),
    outside: outside.length > 0 ? { p50: percentile(outside, 50), p99: percentile(outside, 99) } : undefined,
    loopDelay: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6 },
  };
}

function answeredFigures(outcomes: Outcome[]): RunFigures['answered'] {
  const all = outcomes.filter((o) => o.status !== null).map((o) => o.ms).sort((a, b) => a - b);
  return { p99: Math.round(percentile(all, 99)), max: Math.round(all[all.length - 1] ?? 0) };
}

function countBy(keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

function loopMonitor(): ReturnType<typeof monitorEventLoopDelay> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return h;
}

function stageFigures(ok: Outcome[]): RunFigures['stages'] {
  const byName = new Map<string, number[]>();
  for (const o of ok) for (const [name, ms] of Object.entries(o.stages ?? {})) (byName.get(name) ?? byName.set(name, []).get(name)!).push(ms);
  const out: RunFigures['stages'] = {};
  for (const [name, list] of byName) {
    list.sort((a, b) => a - b);
    out[name] = { p50: percentile(list, 50), p99: percentile(list, 99) };
  }
  return out;
}

/** Closed loop: `concurrency` requests in flight for `seconds`. */
export async function sustained(send: Send, start: number, concurrency: number, seconds: number): Promise<RunFigures & { next: number }> {
  let n = start;
  const outcomes: Outcome[] = [];
  const loop = loopMonitor();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) outcomes.push(await send(n++));
  }));
  return { ...figures(outcomes, performance.now() - t0, loop), next: n };
}

/** Open loop: `rate` requests per second for `seconds`, sent on schedule (in ticks of 1 ms or more). */
export async function offered(send: Send, start: number, rate: number, seconds: number): Promise<RunFigures & { next: number }> {
  const total = Math.round(rate * seconds);
  const pending: Promise<Outcome>[] = [];
  const loop = loopMonitor();
  const t0 = performance.now();
  let i = 0;
  while (i < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
    for (; i < due; i++) pending.push(send(start + i));
    // Sleep until the next request is due, not a fixed 1 ms: below 1,000/s most 1 ms wake-ups sent nothing
    // and were the load generator's own CPU per order (the same schedule either way).
    const nextAt = t0 + (i * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(1, Math.floor(nextAt - performance.now()))));
  }
  const outcomes = await Promise.all(pending);
  return { ...figures(outcomes, performance.now() - t0, loop), next: start + total };
}

export function line(name: string, f: RunFigures): string {
  const failed = f.wrongStatus + f.timeouts + f.errors;
  const stages = Object.entries(f.stages).map(([s, v]) => `${s} ${v.p50.toFixed(1)}/${v.p99.toFixed(1)}`).join(', ');
  const codes = (m: Record<string, number>) => Object.entries(m).map(([k, v]) => `${k} ${v}`).join(', ');
  return `${name}: ${f.okPerSec.toFixed(0)}/s answered ok, p50 ${f.p50} ms, p99 ${f.p99} ms (${f.sent} sent, ${failed} failed: ${f.wrongStatus} other status, ${f.timeouts} timeouts, ${f.errors} connection errors)`
    + (f.wrongStatus > 0 ? `\n  answers by status: ${codes(f.statuses)}; every answer p99 ${f.answered.p99} ms, max ${f.answered.max} ms` : '')
    + (f.errors > 0 ? `\n  connection errors by code: ${codes(f.errorCodes)}` : '')
    + (stages ? `\n  server stages p50/p99 ms: ${stages}` : '')
    + (f.outside ? `\n  outside the server stages p50/p99 ms: ${f.outside.p50.toFixed(1)}/${f.outside.p99.toFixed(1)}` : '')
    + `\n  load generator event-loop delay p50/p99 ms: ${f.loopDelay.p50.toFixed(1)}/${f.loopDelay.p99.toFixed(1)}`;
}
