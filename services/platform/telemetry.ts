/**
 * OpenTelemetry: the SDK gives every request a trace, and the W3C trace context rides in Kafka headers
 * from the API through the processor and the relay onto account-events.
 */
import { context, propagation } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import type { Config } from './config';

let sdk: NodeSDK | undefined;

export function startTelemetry(cfg: Config): void {
  if (sdk) return;
  const spanProcessors =
    cfg.OTEL_TRACES_EXPORTER === 'console' ? [new tracing.SimpleSpanProcessor(new tracing.ConsoleSpanExporter())] : [];
  sdk = new NodeSDK({
    serviceName: `energy-rental-${cfg.NETWORK}`,
    spanProcessors,
    instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation(), new PgInstrumentation()],
  });
  sdk.start();
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
  sdk = undefined;
}

/** The active trace context as message headers (traceparent, tracestate). */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
