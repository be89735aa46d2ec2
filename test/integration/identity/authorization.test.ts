/**
 * The authorization matrix: every identity endpoint × every kind of credential → the specified status
 * and code. Then: another account's objects answer 404 exactly like missing ones.
 */
import type { AuthRequirement, MemberRole } from '../../../services/api/auth/context';
import {
  call, newWallet, sessionHeaders, signedHeaders, signIn, signUp, startIdentityStack,
  type Customer, type IdentityStack, type Reply, type Session,
} from '../../support/identity';

let stack: IdentityStack;
let owner: Customer;
let scopeless: { id: string; secret: string };
let revoked: { id: string; secret: string };
let expiredToken: string;
const memberWallets: Partial<Record<MemberRole, Awaited<ReturnType<typeof newWallet>>>> = {};

interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  need: AuthRequirement;
  /** Builds the request for a cell expected to succeed (fresh objects for deletes). */
  prepare?: (s: Session) => Promise<{ path?: string; body?: unknown }>;
  body?: () => unknown;
}

const viewer = { session: { minRole: 'viewer' as const } };
const editor = { session: { minRole: 'editor' as const } };
const ownerOnly = { session: { minRole: 'owner' as const } };

async function freshEntry(s: Session): Promise<string> {
  const wallet = await newWallet();
  const res = await call(stack.base, 'POST', '/v1/account/addresses', { body: { label: 'x', address: wallet.address }, headers: sessionHeaders(s) });
  return res.body.id;
}

const endpoints: Endpoint[] = [
  { method: 'GET', path: '/v1/accounts/deposit-address', need: { bootstrap: true } },
  { method: 'GET', path: '/v1/account', need: { apiKey: { scope: 'account.read' }, bootstrap: true, ...viewer } },
  { method: 'PATCH', path: '/v1/account', need: ownerOnly, body: () => ({ display_name: 'Renamed' }) },
  { method: 'GET', path: '/v1/deposit-addresses', need: { apiKey: { scope: 'account.read' }, ...viewer } },
  { method: 'POST', path: '/v1/api-keys', need: { bootstrap: true, ...ownerOnly }, body: () => ({ name: 'm', scopes: ['balance.read'] }) },
  { method: 'GET', path: '/v1/api-keys', need: viewer },
  {
    method: 'DELETE', path: '/v1/api-keys/key_000000000000000000000000', need: ownerOnly,
    prepare: async () => {
      const res = await call(stack.base, 'POST', '/v1/api-keys', { body: {}, headers: { authorization: `Bearer ${owner.token}` } });
      return { path: `/v1/api-keys/${res.body.id}` };
    },
  },
  { method: 'GET', path: '/v1/session', need: viewer },
  { method: 'DELETE', path: '/v1/session', need: viewer },
  { method: 'POST', path: '/v1/session/refresh', need: viewer },
  { method: 'POST', path: '/v1/session/revoke-all', need: viewer },
  { method: 'GET', path: '/v1/session/history', need: viewer },
  { method: 'GET', path: '/v1/account/members', need: viewer },
  { method: 'POST', path: '/v1/account/members', need: ownerOnly, body: () => ({ address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', role: 'viewer' }) },
  {
    method: 'DELETE', path: '/v1/account/members/TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', need: ownerOnly,
    prepare: async (s) => {
      const wallet = await newWallet();
      await call(stack.base, 'POST', '/v1/account/members', { body: { address: wallet.address, role: 'viewer' }, headers: sessionHeaders(s) });
      return { path: `/v1/account/members/${wallet.address}` };
    },
  },
  { method: 'GET', path: '/v1/account/addresses', need: viewer },
  { method: 'POST', path: '/v1/account/addresses', need: editor, body: () => ({ label: 'Exchange', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' }) },
  {
    method: 'DELETE', path: '/v1/account/addresses/adr_000000000000000000000000', need: editor,
    prepare: async (s) => ({ path: `/v1/account/addresses/${await freshEntry(s)}` }),
  },
];

type Cred =
  | 'none' | 'bootstrap' | 'expired bootstrap' | 'bad signature' | 'replayed signature' | 'stale timestamp'
  | 'key without the scope' | 'revoked key' | 'no session' | 'session without CSRF' | MemberRole;
const creds: Cred[] = [
  'none', 'bootstrap', 'expired bootstrap', 'bad signature', 'replayed signature', 'stale timestamp',
  'key without the scope', 'revoked key', 'no session', 'session without CSRF', 'viewer', 'editor', 'owner',
];
const rank: Record<MemberRole, number> = { viewer: 0, editor: 1, owner: 2 };

/** [status, code] from the spec and contract; code null for a success (any 2xx). */
function expected(e: Endpoint, cred: Cred): [number, number | null] {
  const sessionOnly = !!e.need.session && !e.need.apiKey && !e.need.bootstrap;
  const unsafe = e.method !== 'GET';
  switch (cred) {
    case 'none': return [401, sessionOnly ? 1013 : 1001];
    case 'bootstrap': return e.need.bootstrap ? [200, null] : [401, 1012];
    case 'expired bootstrap': return e.need.bootstrap ? [401, 1011] : [401, 1012];
    // GET and HEAD signatures may repeat inside the window (contract.md section 2): a replayed GET is the owner's key.
    case 'replayed signature': if (!unsafe) return e.need.apiKey ? [200, null] : [403, 1015]; return [401, 1002];
    case 'bad signature': case 'stale timestamp': case 'revoked key': return [401, 1002];
    case 'key without the scope': return [403, 1015];
    case 'no session': return e.need.session ? [401, 1013] : [401, 1001];
    case 'session without CSRF':
      if (!e.need.session) return [401, 1001];
      if (unsafe) return [403, 1014];
      return [200, null];
    default:
      if (!e.need.session) return [401, 1001];
      return rank[cred] >= rank[e.need.session.minRole] ? [200, null] : [403, 1016];
  }
}

async function sessionFor(role: MemberRole): Promise<Session> {
  return role === 'owner' ? signIn(stack.base, owner.wallet) : signIn(stack.base, memberWallets[role]!, owner.accountId);
}

async function send(e: Endpoint, cred: Cred, succeed: boolean): Promise<Reply> {
  const { base } = stack;
  let path = e.path;
  let body = e.body?.();
  let session: Session | undefined;
  if (cred === 'viewer' || cred === 'editor' || cred === 'owner' || cred === 'session without CSRF') {
    session = await sessionFor(cred === 'session without CSRF' ? 'owner' : cred);
    if (succeed && e.prepare) ({ path = path, body = body } = await e.prepare(await signIn(base, owner.wallet)));
  } else if (succeed && e.prepare) {
    ({ path = path, body = body } = await e.prepare(await signIn(base, owner.wallet)));
  }
  const raw = body === undefined ? undefined : JSON.stringify(body);
  const now = Math.floor(Date.now() / 1000);
  let headers: Record<string, string> = {};
  switch (cred) {
    case 'none': break;
    case 'bootstrap': headers = { authorization: `Bearer ${owner.token}` }; break;
    case 'expired bootstrap': headers = { authorization: `Bearer ${expiredToken}` }; break;
    case 'bad signature': headers = signedHeaders({ ...owner.key, secret: 'not-the-secret' }, e.method, path, raw ?? ''); break;
    case 'replayed signature': {
      headers = signedHeaders(owner.key, e.method, path, raw ?? '');
      await call(base, e.method, path, { raw, headers });
      break;
    }
    case 'stale timestamp': headers = signedHeaders(owner.key, e.method, path, raw ?? '', now - 301); break;
    case 'key without the scope': headers = signedHeaders(scopeless, e.method, path, raw ?? ''); break;
    case 'revoked key': headers = signedHeaders(revoked, e.method, path, raw ?? ''); break;
    case 'no session': headers = { cookie: 'session=not-a-session', 'x-csrf-token': 'x' }; break;
    case 'session without CSRF': headers = sessionHeaders(session!, false); break;
    default: headers = sessionHeaders(session!);
  }
  return call(base, e.method, path, { raw, headers });
}

beforeAll(async () => {
  stack = await startIdentityStack('authz');
  owner = await signUp(stack.base);
  const bearer = { authorization: `Bearer ${owner.token}` };
  const k1 = await call(stack.base, 'POST', '/v1/api-keys', { body: { scopes: ['balance.read'] }, headers: bearer });
  scopeless = { id: k1.body.id, secret: k1.body.secret };
  const k2 = await call(stack.base, 'POST', '/v1/api-keys', { body: {}, headers: bearer });
  revoked = { id: k2.body.id, secret: k2.body.secret };
  const ownerSession = await signIn(stack.base, owner.wallet);
  expect((await call(stack.base, 'DELETE', `/v1/api-keys/${revoked.id}`, { headers: sessionHeaders(ownerSession) })).status).toBe(204);
  for (const role of ['viewer', 'editor'] as const) {
    memberWallets[role] = await newWallet();
    const added = await call(stack.base, 'POST', '/v1/account/members', { body: { address: memberWallets[role]!.address, role }, headers: sessionHeaders(ownerSession) });
    expect(added.status).toBe(201);
  }
  const other = await signUp(stack.base);
  expiredToken = other.token;
  await stack.rt.pool.query("UPDATE bootstrap_tokens SET expires_at = now() - interval '1 second' WHERE address = $1", [other.wallet.address]);
});

afterAll(async () => {
  await stack?.stop();
});

describe.each(endpoints.map((e) => [`${e.method} ${e.path.replace(/\/(key|adr)_0+$|\/T\w{33}$/, '/{id}')}`, e] as const))('%s', (_name, e) => {
  test.each(creds)('%s', async (cred) => {
    const [status, code] = expected(e, cred);
    const res = await send(e, cred, code === null);
    if (code === null) {
      expect([res.status, res.text]).toEqual([expect.toBeWithin2xx(), res.text]);
    } else {
      expect([res.status, res.body?.error?.code]).toEqual([status, code]);
    }
    if (cred === 'key without the scope' && e.need.apiKey) expect(res.body.error.details).toEqual({ scope: 'account.read' });
    if (code === 1016) expect(res.body.error.details).toEqual({ role: e.need.session!.minRole });
  });
});

describe("another account's objects answer 404, like missing ones", () => {
  test('address-book entries, API keys and members', async () => {
    const { base } = stack;
    const ownerSession = await signIn(base, owner.wallet);
    const entry = await freshEntry(ownerSession);
    const intruder = await signUp(base);
    const theirs = await signIn(base, intruder.wallet);
    const strip = (r: Reply) => [r.status, r.text.replace(/"request_id":"req_[0-9a-f]+"/, '')];
    const pairs: Array<[string, string]> = [
      [`/v1/account/addresses/${entry}`, '/v1/account/addresses/adr_ffffffffffffffffffffffff'],
      [`/v1/api-keys/${owner.key.id}`, '/v1/api-keys/key_ffffffffffffffffffffffff'],
      [`/v1/account/members/${memberWallets.viewer!.address}`, '/v1/account/members/TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'],
    ];
    for (const [foreign, missing] of pairs) {
      const a = await call(base, 'DELETE', foreign, { headers: sessionHeaders(theirs) });
      const b = await call(base, 'DELETE', missing, { headers: sessionHeaders(theirs) });
      expect(a.status).toBe(404);
      expect(strip(a)).toEqual(strip(b));
    }
    // Nothing of the owner's was touched.
    const book = await call(base, 'GET', '/v1/account/addresses', { headers: sessionHeaders(ownerSession) });
    expect(book.body.data.map((d: any) => d.id)).toContain(entry);
    const account = await call(base, 'GET', '/v1/account', { headers: signedHeaders(owner.key, 'GET', '/v1/account') });
    expect(account.status).toBe(200);
    // A member cannot pick an account it does not belong to.
    const proof = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: intruder.wallet.address } });
    expect(proof.status).toBe(201);
  });
});

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Expect {
      toBeWithin2xx(): unknown;
    }
  }
}
expect.extend({
  toBeWithin2xx(received: number) {
    return { pass: received >= 200 && received < 300, message: () => `expected a 2xx, got ${received}` };
  },
});
