/**
 * The one place that reads the environment. Every role imports `loadConfig()`; nothing else touches
 * process.env, so a missing or malformed variable fails the start with one clear message.
 */
import { z } from 'zod';

const boolFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const schema = z.object({
  NETWORK: z.enum(['mainnet', 'nile']).default('nile'),
  BRAND: z.string().regex(/^[a-z][a-z0-9-]{1,30}$/, 'lower-case letters, digits and dashes').default('energy'),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  API_HOST: z.string().default('127.0.0.1'),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
  KAFKA_CLIENT_ID: z.string().default('energy-rental'),
  SCHEMA_REGISTRY_URL: z.string().url().default('http://127.0.0.1:8081/apis/ccompat/v7'),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/energy_nile'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379/0'),
  TRON_FULL_HOST: z.string().url().default('http://127.0.0.1:8090'),
  /** How long an API call waits for the processor before the command is abandoned (and refused). */
  COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Partition counts of the declared topics; production may raise them, tests may lower them. */
  TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(256).default(6),
  /** 1 = real time. Tests run retries and expiry on a faster clock. */
  CLOCK_SCALE: z.coerce.number().positive().default(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_TRACES_EXPORTER: z.enum(['none', 'console', 'otlp']).default('none'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolFromEnv.default(false),
  PROCESSOR_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  /** Topic name prefix; must start with the network. Tests give each file its own world with it. */
  TOPIC_PREFIX: z.string().regex(/^[a-z0-9._-]+\.$/, 'lower-case, ends with a dot').optional(),
  /** How long the group waits for a silent consumer before moving its partitions. */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).max(300_000).default(30_000),
  /**
   * Test-only chaos: `point:probability,...` makes the process SIGKILL itself at named points (for the
   * crash-safety tests). Refused on mainnet.
   */
  CHAOS_CRASH_POINTS: z.string().regex(/^([a-z.-]+:(0|1|0?\.\d+))(,[a-z.-]+:(0|1|0?\.\d+))*$/).optional(),
});

export type Config = z.infer<typeof schema> & {
  /** Topic and consumer-group names carry the network, so two worlds never share a topic. */
  topicPrefix: string;
};

let cached: Config | undefined;

export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  const cfg = parsed.data;
  if (cfg.NETWORK === 'mainnet' && cfg.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
    throw new Error('Invalid configuration:\n  WEBHOOK_ALLOW_PRIVATE_TARGETS: refused when NETWORK is mainnet');
  }
  if (cfg.NETWORK === 'mainnet' && cfg.CHAOS_CRASH_POINTS) {
    throw new Error('Invalid configuration:\n  CHAOS_CRASH_POINTS: refused when NETWORK is mainnet');
  }
  const topicPrefix = cfg.TOPIC_PREFIX ?? `${cfg.NETWORK}.`;
  if (!topicPrefix.startsWith(`${cfg.NETWORK}.`)) {
    throw new Error(`Invalid configuration:\n  TOPIC_PREFIX: must start with "${cfg.NETWORK}." so topic names carry the network`);
  }
  return { ...cfg, topicPrefix };
}

export function loadConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
