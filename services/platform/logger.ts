/**
 * JSON logs. The request id (and any other per-request field) rides in AsyncLocalStorage so every
 * line logged while serving a request carries it without passing a logger around.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';

const context = new AsyncLocalStorage<Record<string, unknown>>();

// Field names whose values must never reach a log line, whatever object they sit in.
export const redactedPaths = [
  'secret', '*.secret', 'private_key', '*.private_key', 'privateKey', '*.privateKey', 'signature', '*.signature', 'token', '*.token',
  'headers["x-api-sign"]', 'headers["x-csrf-token"]', 'headers["set-cookie"]', 'headers.authorization', 'headers.cookie',
  '*.headers["x-api-sign"]', '*.headers["x-csrf-token"]', '*.headers["set-cookie"]', '*.headers.authorization', '*.headers.cookie',
  'password', '*.password',
];

export const logger = pino({
  level: 'info', // raised or lowered from the config by the program's entry point
  base: { service: 'energy-rental', pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: { paths: redactedPaths, censor: '[redacted]' },
  mixin: () => context.getStore() ?? {},
  formatters: { level: (label) => ({ level: label }) },
});

export type Logger = typeof logger;

export function withLogContext<T>(fields: Record<string, unknown>, fn: () => T): T {
  return context.run({ ...(context.getStore() ?? {}), ...fields }, fn);
}
