/**
 * OpenTelemetry: the W3C trace context rides in Kafka headers from the API through the processor and the
 * relay onto account-events.
 *
 * With an exporter (OTEL_TRACES_EXPORTER console or otlp) the SDK runs with its instrumentations. Without
 * one (`none`, the default) nothing would ever read a span, so the SDK is not even loaded: loading it
 * cost each process CPU at start, and its require hook (require-in-the-middle) ran on every kafkajs
 * produce and fetch request, a share of every process's busy time under the orders benchmark (bench/README.md,
 * "CPU per order by process; OpenTelemetry off without an exporter"). A caller's own `traceparent` still
 * continues through the log then
 * (`withCallerTrace` in the API, `traceHeaders` at the append).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Config } from './config';

let sdk: { shutdown(): Promise<void> } | undefined;

/** The caller's trace headers while tracing runs without the SDK. */
const callerTrace = new AsyncLocalStorage<Record<string, string>>();
/** W3C trace context version 00; all-zero trace and parent ids are invalid. */
const TRACEPARENT = /^00-(?!0{32}-)[0-9a-f]{32}-(?!0{16}-)[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACESTATE_MAX = 512;

export function startTelemetry(cfg: Config): void {
  if (sdk || cfg.OTEL_TRACES_EXPORTER === 'none') return;
  // Loaded here, only when spans go somewhere (see above).
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK, tracing } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // otlp: OTLP/HTTP (JSON) to OTEL_EXPORTER_OTLP_ENDPOINT, batched off the request path.
  const spanProcessors = cfg.OTEL_TRACES_EXPORTER === 'console'
    ? [new tracing.SimpleSpanProcessor(new tracing.ConsoleSpanExporter())]
    : [new tracing.BatchSpanProcessor(otlpExporter(cfg.OTEL_EXPORTER_OTLP_ENDPOINT!), { scheduledDelayMillis: 500 })];
  const started = new NodeSDK({
    serviceName: `energy-rental-${cfg.NETWORK}`,
    spanProcessors,
    instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation(), new PgInstrumentation()],
  });
  started.start();
  sdk = started;
}

function otlpExporter(endpoint: string) {
  /* eslint-disable-next-line @typescript-eslint/no-require-imports */
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
}

/**
 * A span of work done for a traced request after it left the API (the processor applying its command, the
 * relay publishing its events): a child of the context carried in `carrier` (traceparent headers), from
 * `startMs` to `endMs` (epoch ms). Nothing without the SDK or without a carried context.
 */
export function recordSpan(name: string, carrier: Record<string, string> | null | undefined, startMs: number, endMs: number, attributes: Record<string, string | number> = {}): void {
  if (!sdk || !carrier?.traceparent) return;
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  trace.getTracer('energy-rental').startSpan(name, { startTime: startMs, attributes, kind: SpanKind.CONSUMER }, parent).end(endMs);
}

/** Whether spans go anywhere (an exporter is set): work done only for spans is skipped otherwise. */
export function tracing(): boolean {
  return sdk !== undefined;
}

/** The trace and span ids of the active context (the SDK's span, or the caller's traceparent without it), for log lines. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (sdk) {
    const span = trace.getSpan(context.active())?.spanContext();
    return span && span.traceId !== '00000000000000000000000000000000' ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
  }
  const caller = callerTrace.getStore()?.traceparent;
  if (!caller) return undefined;
  const [, traceId, spanId] = caller.split('-');
  return { trace_id: traceId, span_id: spanId };
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
  sdk = undefined;
}

/**
 * Runs `fn` with the caller's trace context (`traceparent`, `tracestate` request headers) as the one
 * `traceHeaders` gives, when the SDK is not running (with it, its own context is used). A malformed
 * `traceparent` is ignored, as the W3C propagator would.
 */
export function withCallerTrace<T>(headers: Record<string, string | string[] | undefined>, fn: () => T): T {
  const traceparent = headers.traceparent;
  if (sdk || typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return fn();
  const tracestate = headers.tracestate;
  const carried: Record<string, string> = typeof tracestate === 'string' && tracestate.length > 0 && tracestate.length <= TRACESTATE_MAX
    ? { traceparent, tracestate } : { traceparent };
  return callerTrace.run(carried, fn);
}

/** The active trace context as message headers (traceparent, tracestate). */
export function traceHeaders(): Record<string, string> {
  if (!sdk) {
    const caller = callerTrace.getStore();
    return caller ? { ...caller } : {};
  }
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
