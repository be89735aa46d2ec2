/**
 * How this process reaches the schema registry: its URL, for an https:// one the CA that signed its
 * certificate (SCHEMA_REGISTRY_CA_FILE, read once), and HTTP basic auth (SCHEMA_REGISTRY_USERNAME and
 * _PASSWORD). The same access serves the registry client (registry.ts), the start-up's first contact and
 * the readiness check; the password is never in a message.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Config } from '../config';

export interface RegistryAccess {
  url: string;
  /** For an https:// URL with a CA of its own; unset: Node's defaults. */
  agent?: https.Agent;
  auth?: { username: string; password: string };
}

export function registryAccess(cfg: Pick<Config, 'SCHEMA_REGISTRY_URL' | 'SCHEMA_REGISTRY_CA_FILE' | 'SCHEMA_REGISTRY_USERNAME' | 'SCHEMA_REGISTRY_PASSWORD'>): RegistryAccess {
  let ca: Buffer | undefined;
  if (cfg.SCHEMA_REGISTRY_CA_FILE) {
    try {
      ca = readFileSync(cfg.SCHEMA_REGISTRY_CA_FILE);
    } catch (err) {
      throw new Error(`Invalid configuration:\n  SCHEMA_REGISTRY_CA_FILE: ${(err as Error).message}`);
    }
  }
  return {
    url: cfg.SCHEMA_REGISTRY_URL,
    ...(ca ? { agent: new https.Agent({ ca, keepAlive: true }) } : {}),
    // config.ts refuses one without the other.
    ...(cfg.SCHEMA_REGISTRY_USERNAME ? { auth: { username: cfg.SCHEMA_REGISTRY_USERNAME, password: cfg.SCHEMA_REGISTRY_PASSWORD! } } : {}),
  };
}

/** host:port of the registry URL, without credentials (for messages). */
function target(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/** The status of a GET of `path` under the registry URL (bounded). */
export function registryGet(access: RegistryAccess, path: string, timeoutMs = 5_000): Promise<number> {
  const url = new URL(`${access.url.replace(/\/+$/, '')}${path}`);
  const headers: Record<string, string> = { accept: 'application/vnd.schemaregistry.v1+json' };
  if (access.auth) headers.authorization = `Basic ${Buffer.from(`${access.auth.username}:${access.auth.password}`).toString('base64')}`;
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', headers, timeout: timeoutMs, ...(access.agent ? { agent: access.agent } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * The first contact at start-up: an untrusted certificate or refused credentials fail the start naming the
 * registry and why (the client would otherwise fail later, at the first schema registered, in its own words).
 */
export async function reachRegistry(access: RegistryAccess): Promise<void> {
  let status: number;
  try {
    status = await registryGet(access, '/config');
  } catch (err) {
    const e = err as Error & { code?: string };
    // The registry merely away (refused, reset, slow) is left to the client's own retries, as before.
    if (!/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME|ALTNAME/.test(e.code ?? '') && !/certificate|ssl|tls/i.test(e.message)) return;
    throw new Error(`Schema registry at ${target(access.url)} (SCHEMA_REGISTRY_URL): TLS handshake refused: ${e.message}`);
  }
  if (status === 401 || status === 403) {
    throw new Error(`Schema registry at ${target(access.url)} (SCHEMA_REGISTRY_URL): credentials refused (HTTP ${status}; SCHEMA_REGISTRY_USERNAME, SCHEMA_REGISTRY_PASSWORD)`);
  }
}
