/**
 * Identity test kit: a world with the processor, relay and the API on an ephemeral port, and a client
 * that signs up the way a customer does (fresh TronWeb keypair, challenge, signMessageV2, verify) and
 * makes signed API-key and session requests.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { TronWeb } from 'tronweb';
import { createApp } from '../../services/api/app';
import { signature, Stamper } from '../../clients/typescript/src/signing';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { startRoles, type Stoppable } from '../../services/roles';
import { dropWorld, newWorld, openBus, openRuntime, type World } from './world';

/** Budgets lifted so a test's own traffic is never rate-limited. */
export const OPEN_BUDGETS = {
  BUDGET_CHALLENGE_PER_IP_PER_MIN: '100000', BUDGET_CHALLENGE_PER_ADDRESS_PER_MIN: '100000', BUDGET_READS_PER_SEC: '100000', BUDGET_WRITES_PER_SEC: '100000',
  BUDGET_PROOFS_PER_IP_PER_MIN: '100000', BUDGET_PUBLIC_READS_PER_IP_PER_SEC: '100000', BUDGET_CREDENTIAL_MISSES_PER_IP_PER_MIN: '100000',
};

/** A world with its runtime, command bus, the processor and relay, and the API on an ephemeral port. */
export interface ApiStack {
  world: World;
  rt: Runtime;
  bus: CommandBus;
  base: string;
  /** Closes the server, then stops the roles (the bus, runtime and world are the caller's to close). */
  stopServing(): Promise<void>;
}

export async function startApiStack(label: string, env: Record<string, string>): Promise<ApiStack> {
  const world = newWorld(label, env);
  const rt = await openRuntime(world);
  const bus = await openBus(rt);
  const roles: Stoppable[] = await startRoles(rt, ['processor', 'relay']);
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    world, rt, bus, base,
    stopServing: async () => {
      await new Promise((r) => server.close(r));
      await Promise.allSettled(roles.map((r) => r.stop()));
    },
  };
}

export interface IdentityStack {
  world: World;
  rt: Runtime;
  bus: CommandBus;
  base: string;
  stop(): Promise<void>;
}

export async function startIdentityStack(label: string, overrides: Record<string, string> = {}): Promise<IdentityStack> {
  const { world, rt, bus, base, stopServing } = await startApiStack(label, { ...OPEN_BUDGETS, ...overrides });
  return {
    world, rt, bus, base,
    stop: async () => {
      await stopServing();
      await bus.stop();
      await rt.close();
      await dropWorld(world);
    },
  };
}

export interface Reply {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export async function call(base: string, method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const raw = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const res = await fetch(base + path, {
    method,
    headers: { ...(raw !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body: raw,
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body, text, headers: res.headers };
}

const tronWeb = new TronWeb({ fullHost: 'http://127.0.0.1:1' });

export interface Wallet {
  address: string;
  privateKey: string;
}

export async function newWallet(): Promise<Wallet> {
  const a = await TronWeb.createAccount();
  return { address: a.address.base58, privateKey: a.privateKey };
}

export function sign(message: string, wallet: Wallet): string {
  return tronWeb.trx.signMessageV2(message, wallet.privateKey);
}

/** Challenge + signature, ready for verify, POST /v1/accounts or POST /v1/session. */
export async function signedChallenge(base: string, wallet: Wallet, purpose = 'signup'): Promise<{ address: string; nonce: string; signature: string }> {
  const challenge = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: wallet.address, purpose } });
  if (challenge.status !== 201) throw new Error(`challenge: ${challenge.status} ${challenge.text}`);
  return { address: wallet.address, nonce: challenge.body.nonce, signature: sign(challenge.body.message, wallet) };
}

export async function bootstrapToken(base: string, wallet: Wallet): Promise<string> {
  const verified = await call(base, 'POST', '/v1/accounts/challenge/verify', { body: await signedChallenge(base, wallet) });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.text}`);
  return verified.body.bootstrap_token;
}

export interface Customer {
  wallet: Wallet;
  accountId: string;
  token: string;
  key: { id: string; secret: string };
}

/** The whole signup path; the key has every scope unless `scopes` says otherwise. */
export async function signUp(base: string, scopes?: string[]): Promise<Customer> {
  const wallet = await newWallet();
  const token = await bootstrapToken(base, wallet);
  const bearer = { authorization: `Bearer ${token}` };
  const created = await call(base, 'POST', '/v1/accounts', { body: { address: wallet.address }, headers: bearer });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const key = await call(base, 'POST', '/v1/api-keys', { body: scopes ? { scopes } : {}, headers: bearer });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { wallet, accountId: created.body.account_id, token, key: { id: key.body.id, secret: key.body.secret } };
}

/**
 * Unix milliseconds that never repeat in this process: two identical writes in one second are two requests,
 * not a replay. The typed client's own stamper (clients/typescript), so tests sign as customers' bots do.
 */
const stamper = new Stamper('milliseconds');
export function uniqueTimestampMs(): number {
  return Number(stamper.next(true).timestamp);
}

/** The typed client's signature; lower-case names so a test can override one header by spreading. */
export function signedHeaders(key: { id: string; secret: string }, method: string, path: string, raw = '', timestamp = uniqueTimestampMs()): Record<string, string> {
  return { 'x-api-key': key.id, 'x-api-timestamp': String(timestamp), 'x-api-sign': signature(key.secret, String(timestamp), method, path, raw) };
}

export async function signedCall(
  base: string, key: { id: string; secret: string }, method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {},
): Promise<Reply> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  return call(base, method, path, { raw: body === undefined ? undefined : raw, headers: { ...signedHeaders(key, method, path, raw), ...extraHeaders } });
}

export interface Session {
  cookie: string;
  csrf: string;
  body: any;
}

export async function signIn(base: string, wallet: Wallet, accountId?: string): Promise<Session> {
  const proof = await signedChallenge(base, wallet, 'login');
  const res = await call(base, 'POST', '/v1/session', { body: accountId ? { ...proof, account_id: accountId } : proof });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${res.text}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  return { cookie, csrf: res.body.csrf_token, body: res.body };
}

export function sessionHeaders(s: Session, csrf = true): Record<string, string> {
  return { cookie: s.cookie, ...(csrf ? { 'x-csrf-token': s.csrf } : {}) };
}

/** The owner's session and, signed in to the owner's account, a fresh viewer and a fresh editor member. */
export async function ownerViewerEditor(base: string, customer: Customer): Promise<{ owner: Session; viewer: Session; editor: Session }> {
  const owner = await signIn(base, customer.wallet);
  const [viewerWallet, editorWallet] = [await newWallet(), await newWallet()];
  for (const [w, role] of [[viewerWallet, 'viewer'], [editorWallet, 'editor']] as const) {
    const added = await call(base, 'POST', '/v1/account/members', { body: { address: w.address, role }, headers: sessionHeaders(owner) });
    if (added.status !== 201) throw new Error(`member ${role}: ${added.status} ${added.text}`);
  }
  return { owner, viewer: await signIn(base, viewerWallet, customer.accountId), editor: await signIn(base, editorWallet, customer.accountId) };
}
