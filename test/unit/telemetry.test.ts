/**
 * Without an exporter the OpenTelemetry SDK is not loaded (no require hook, no span per request), yet a
 * caller's own trace context still becomes the command's headers (services/platform/telemetry.ts).
 */
import { parseConfig } from '../../services/platform/config';
import { freshKeys } from './support/keys';
import { startTelemetry, stopTelemetry, traceHeaders, withCallerTrace } from '../../services/platform/telemetry';

const CALLER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

afterAll(() => stopTelemetry());

test('exporter none: the SDK stays unloaded; a caller traceparent reaches traceHeaders across awaits', async () => {
  startTelemetry({ ...parseConfig({ ...freshKeys(), NETWORK: 'nile' }), OTEL_TRACES_EXPORTER: 'none' });
  expect(Object.keys(require.cache).some((m) => m.includes('@opentelemetry/sdk-node'))).toBe(false);
  const carried = await withCallerTrace({ traceparent: CALLER, tracestate: 'vendor=1' }, async () => {
    await new Promise((r) => setTimeout(r, 5));
    return traceHeaders();
  });
  expect(carried).toEqual({ traceparent: CALLER, tracestate: 'vendor=1' });
  expect(await withCallerTrace({}, async () => traceHeaders())).toEqual({});
  expect(traceHeaders()).toEqual({});
});

test('a malformed or all-zero traceparent is not carried', () => {
  for (const bad of ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'x']) {
    expect(withCallerTrace({ traceparent: bad }, () => traceHeaders())).toEqual({});
  }
});
