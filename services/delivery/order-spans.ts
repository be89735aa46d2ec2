/**
 * Spans of a delivery role's work on orders, each in the trace of the request that placed the order (the
 * context the processor stored with it), so one order is one trace from its POST through the broadcast to
 * the confirmation. While no span goes anywhere (no exporter) nothing is read.
 */
import { recordSpan, tracing } from '../platform/telemetry';
import type { DeliveryStore } from './store';

export async function recordOrderSpans(store: DeliveryStore, name: string, orderIds: Iterable<string>, startMs: number, endMs = Date.now()): Promise<void> {
  const ids = [...new Set(orderIds)];
  if (!tracing() || ids.length === 0 || !store.orderTraces) return;
  // A span is worth no failed pass: a read that fails loses the spans, not the work.
  const traces = await store.orderTraces(ids).catch(() => new Map<string, Record<string, string>>());
  for (const id of ids) recordSpan(name, traces.get(id), startMs, endMs, { 'order.id': id });
}
