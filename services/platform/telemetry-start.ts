/**
 * Imported first by services/main.ts: the SDK's instrumentations patch http, express and pg only for modules
 * loaded after it starts, and every other import of the entry point loads them. A configuration that does
 * not parse is left to main() to report (it reads the same cached config and fails with the message).
 */
import { loadConfig } from './config';
import { startTelemetry } from './telemetry';

try {
  startTelemetry(loadConfig());
} catch {
  // main() reports it.
}
