import path from 'node:path';

/** Devnet settings, read once from the environment at start (see README.md). */
export interface DevnetConfig {
  readonly port: number;
  readonly blockMs: number;
  readonly solidifyDepth: number;
  readonly seed: string;
  readonly dataDir: string;
  readonly customers: number;
  readonly pool: number;
  readonly trxPerUsdt: string;
  readonly sigWorkers: number;
  /** A full state snapshot every N blocks (and at shutdown); between them each block's changes are appended with it. */
  readonly snapshotBlocks: number;
  /** Address the HTTP server binds: loopback, except in a container (docker-compose.yml sets 0.0.0.0). */
  readonly host: string;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got '${raw}'`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function isPositiveDecimal(value: string): boolean {
  return /^\d+(\.\d+)?$/.test(value) && /[1-9]/.test(value);
}

function bindHost(raw: string | undefined): string {
  if (raw === undefined || raw === '') return '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(raw)) throw new ConfigError(`DEVNET_HOST must be an address or host name, got '${raw}'`);
  return raw;
}

/** Fails fast with one clear message per bad variable instead of misbehaving later. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): DevnetConfig {
  const trxPerUsdt = (env.DEVNET_TRX_PER_USDT ?? '3.5').trim();
  if (!isPositiveDecimal(trxPerUsdt)) {
    throw new ConfigError(`DEVNET_TRX_PER_USDT must be a positive decimal string, got '${trxPerUsdt}'`);
  }
  const seed = env.DEVNET_SEED ?? 'devnet';
  if (seed === '') throw new ConfigError('DEVNET_SEED must not be empty');
  return {
    port: int(env, 'DEVNET_PORT', 8090, 1, 65535),
    blockMs: int(env, 'DEVNET_BLOCK_MS', 3000, 20, 3_600_000),
    solidifyDepth: int(env, 'DEVNET_SOLIDIFY_DEPTH', 1, 0, 1000),
    seed,
    dataDir: path.resolve(cwd, env.DEVNET_DATA_DIR || '.stack/devnet-data'),
    customers: int(env, 'DEVNET_CUSTOMERS', 5, 0, 1000),
    pool: int(env, 'DEVNET_POOL', 3, 0, 1000),
    trxPerUsdt,
    sigWorkers: int(env, 'DEVNET_SIG_WORKERS', 2, 0, 16),
    snapshotBlocks: int(env, 'DEVNET_SNAPSHOT_BLOCKS', 600, 1, 1_000_000),
    host: bindHost(env.DEVNET_HOST),
  };
}
