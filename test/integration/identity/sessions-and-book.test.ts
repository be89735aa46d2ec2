/**
 * Dashboard sessions (cookie, CSRF, sliding expiry, sign-out, revoke-all, history, members) and the
 * address book (100 entries, replace by address without a slot, label rules, 3019), then bad bodies on
 * every identity endpoint: 400 2000 and nothing changed.
 */
import {
  call, newWallet, sessionHeaders, signedChallenge, signIn, signUp, startIdentityStack, type Customer, type IdentityStack,
} from '../../support/identity';

let stack: IdentityStack;
let owner: Customer;
beforeAll(async () => {
  stack = await startIdentityStack('sessions');
  owner = await signUp(stack.base);
});
afterAll(async () => {
  await stack?.stop();
});

describe('sessions', () => {
  test('sign-in sets an httpOnly cookie and answers the session; GET restores it; refresh slides the expiry', async () => {
    const { base } = stack;
    const proof = await signedChallenge(base, owner.wallet, 'login');
    const res = await call(base, 'POST', '/v1/session', { body: proof });
    expect(res.status).toBe(201);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^session=[^;]+; Max-Age=604800; Path=\/v1; HttpOnly; Secure; SameSite=Lax$/);
    expect(res.body).toMatchObject({ account_id: owner.accountId, address: owner.wallet.address, role: 'owner', network: 'nile', ttl_seconds: 604800, account_status: 'unfunded' });
    const s = { cookie: cookie.split(';')[0], csrf: res.body.csrf_token, body: res.body };
    const restored = await call(base, 'GET', '/v1/session', { headers: { cookie: s.cookie } });
    expect(restored.status).toBe(200);
    expect(restored.body.csrf_token).toBe(s.csrf);
    await stack.rt.pool.query("UPDATE sessions SET expires_at = now() + interval '1 day' WHERE account_id = $1", [owner.accountId]);
    const refreshed = await call(base, 'POST', '/v1/session/refresh', { headers: sessionHeaders(s) });
    expect(refreshed.status).toBe(200);
    expect(Date.parse(refreshed.body.expires_at)).toBeGreaterThan(Date.now() + 6.9 * 86_400_000);
    expect(refreshed.headers.get('set-cookie')).toMatch(/^session=/);
    // Used after expiry: 1013.
    await stack.rt.pool.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE account_id = $1", [owner.accountId]);
    const expired = await call(base, 'GET', '/v1/session', { headers: { cookie: s.cookie } });
    expect([expired.status, expired.body.error.code]).toEqual([401, 1013]);
  });

  test('sign-out ends this session only; revoke-all ends every session of the signer, not other members', async () => {
    const { base } = stack;
    const a = await signIn(base, owner.wallet);
    const b = await signIn(base, owner.wallet);
    const c = await signIn(base, owner.wallet);
    const viewerWallet = await newWallet();
    await call(base, 'POST', '/v1/account/members', { body: { address: viewerWallet.address, role: 'viewer' }, headers: sessionHeaders(a) });
    const v = await signIn(base, viewerWallet, owner.accountId);
    expect(v.body).toMatchObject({ role: 'viewer', account_id: owner.accountId, owner_address: owner.wallet.address });

    expect((await call(base, 'DELETE', '/v1/session', { headers: sessionHeaders(a) })).status).toBe(204);
    expect((await call(base, 'GET', '/v1/session', { headers: sessionHeaders(a) })).status).toBe(401);
    expect((await call(base, 'GET', '/v1/session', { headers: sessionHeaders(b) })).status).toBe(200);

    expect((await call(base, 'POST', '/v1/session/revoke-all', { headers: sessionHeaders(b) })).status).toBe(204);
    expect((await call(base, 'GET', '/v1/session', { headers: sessionHeaders(c) })).body.error.code).toBe(1013);
    expect((await call(base, 'GET', '/v1/session', { headers: sessionHeaders(v) })).status).toBe(200);
    const audit = await stack.rt.pool.query("SELECT actor FROM audit_log WHERE account_id = $1 AND action = 'session.revoke_all'", [owner.accountId]);
    expect(audit.rows).toEqual([{ actor: owner.wallet.address }]);

    // A removed member's sessions end with it.
    const o = await signIn(base, owner.wallet);
    expect((await call(base, 'DELETE', `/v1/account/members/${viewerWallet.address}`, { headers: sessionHeaders(o) })).status).toBe(204);
    expect((await call(base, 'GET', '/v1/session', { headers: sessionHeaders(v) })).body.error.code).toBe(1013);
  });

  test('history lists the last ten sign-ins of this signer on this account, newest first', async () => {
    const { base } = stack;
    const wallet = await newWallet();
    let last;
    for (let i = 0; i < 11; i++) last = await signIn(base, wallet);
    const history = await call(base, 'GET', '/v1/session/history', { headers: sessionHeaders(last!) });
    expect(history.status).toBe(200);
    expect(history.body.data).toHaveLength(10);
    expect(history.body.data.every((r: any) => r.address === wallet.address && typeof r.ip === 'string')).toBe(true);
    const times = history.body.data.map((r: any) => Date.parse(r.signed_in_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    // The first sign-in created the account (unfunded, owner).
    expect(last!.body).toMatchObject({ role: 'owner', account_status: 'unfunded', owner_address: wallet.address });
  });

  test('the owner renames the account; label mirrors display_name; null clears it', async () => {
    const { base } = stack;
    const s = await signIn(base, owner.wallet);
    const renamed = await call(base, 'PATCH', '/v1/account', { body: { display_name: '  Shop  ' }, headers: sessionHeaders(s) });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ display_name: 'Shop', label: 'Shop' });
    const cleared = await call(base, 'PATCH', '/v1/account', { body: { display_name: null }, headers: sessionHeaders(s) });
    expect(cleared.body).toMatchObject({ display_name: null, label: null });
  });
});

describe('address book', () => {
  test('100 entries, replace by address without a slot, 3019 with details, delete frees a slot', async () => {
    const { base } = stack;
    const customer = await signUp(base);
    const s = await signIn(base, customer.wallet);
    const h = sessionHeaders(s);
    const wallets = await Promise.all(Array.from({ length: 101 }, () => newWallet()));
    const first = await call(base, 'POST', '/v1/account/addresses', { body: { label: '  Cold wallet  ', address: wallets[0].address }, headers: h });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ label: 'Cold wallet', address: wallets[0].address });
    expect(first.body.id).toMatch(/^adr_/);
    for (let i = 1; i < 100; i++) {
      expect((await call(base, 'POST', '/v1/account/addresses', { body: { label: `w${i}`, address: wallets[i].address }, headers: h })).status).toBe(201);
    }
    const full = await call(base, 'POST', '/v1/account/addresses', { body: { label: 'one more', address: wallets[100].address }, headers: h });
    expect([full.status, full.body.error.code, full.body.error.details]).toEqual([409, 3019, { limit: 100, used: 100 }]);
    const replaced = await call(base, 'POST', '/v1/account/addresses', { body: { label: 'Renamed', address: wallets[0].address }, headers: h });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: first.body.id, label: 'Renamed' });
    const list = await call(base, 'GET', '/v1/account/addresses', { headers: h });
    expect([list.body.limit, list.body.used, list.body.data.length]).toEqual([100, 100, 100]);
    expect(list.body.data[0].address).toBe(wallets[99].address);
    expect((await call(base, 'DELETE', `/v1/account/addresses/${first.body.id}`, { headers: h })).status).toBe(204);
    expect((await call(base, 'POST', '/v1/account/addresses', { body: { label: 'one more', address: wallets[100].address }, headers: h })).status).toBe(201);
  });
});

describe('bad bodies answer 400 2000 and change nothing', () => {
  const valid = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
  const badChecksum = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9';
  const long = 'x'.repeat(65);

  test.each([
    ['POST', '/v1/accounts/challenge', 'public'],
    ['POST', '/v1/accounts/challenge/verify', 'public'],
    ['POST', '/v1/accounts', 'public'],
    ['POST', '/v1/session', 'public'],
    ['PATCH', '/v1/account', 'session'],
    ['POST', '/v1/account/members', 'session'],
    ['POST', '/v1/api-keys', 'session'],
    ['POST', '/v1/account/addresses', 'session'],
  ])('%s %s', async (method, path, auth) => {
    const { base, rt } = stack;
    const s = await signIn(base, owner.wallet);
    const headers = auth === 'session' ? sessionHeaders(s) : {};
    const counts = async () => (await rt.pool.query(
      `SELECT (SELECT count(*) FROM accounts)::int AS a, (SELECT count(*) FROM api_keys)::int AS k, (SELECT count(*) FROM address_book)::int AS b,
              (SELECT count(*) FROM account_members)::int AS m, (SELECT count(*) FROM auth_challenges)::int AS c,
              (SELECT count(*) FROM bootstrap_tokens)::int AS t, (SELECT display_name FROM accounts WHERE id = $1) AS d`, [owner.accountId])).rows[0];
    const before = await counts();
    const sig = '0x' + 'ab'.repeat(65);
    const good: Record<string, Record<string, unknown>> = {
      '/v1/accounts/challenge': { address: valid },
      '/v1/accounts/challenge/verify': { address: valid, nonce: 'n', signature: sig },
      '/v1/accounts': { address: valid, nonce: 'n', signature: sig },
      '/v1/session': { address: valid, nonce: 'n', signature: sig },
      '/v1/account': { display_name: 'ok' },
      '/v1/account/members': { address: valid, role: 'viewer' },
      '/v1/api-keys': { name: 'ok' },
      '/v1/account/addresses': { label: 'ok', address: valid },
    };
    const base0 = good[path];
    const bad: Array<[string | undefined, unknown, string]> = [
      ['{"address": ', undefined, 'body'],
      [undefined, { ...base0, surprise: 1 }, 'surprise'],
      [undefined, Object.fromEntries(Object.keys(base0).map((k) => [k, 12345])), Object.keys(base0)[0]],
    ];
    if ('address' in base0) bad.push([undefined, { ...base0, address: badChecksum }, 'address']);
    if ('label' in base0) bad.push([undefined, { ...base0, label: long }, 'label'], [undefined, { ...base0, label: '   ' }, 'label']);
    if (path === '/v1/accounts') bad.push([undefined, { ...base0, label: long }, 'label']);
    if ('display_name' in base0) bad.push([undefined, { display_name: long }, 'display_name'], [undefined, { display_name: 'a\u0007b' }, 'display_name'], [undefined, { display_name: ' ' }, 'display_name']);
    if ('name' in base0) bad.push([undefined, { name: 'x'.repeat(65) }, 'name'], [undefined, { scopes: ['everything'] }, 'scopes[0]']);
    for (const [raw, body, field] of bad) {
      const res = await call(base, method, path, { raw: raw ?? JSON.stringify(body), headers });
      expect([res.status, res.body.error.code, res.body.error.details?.field]).toEqual([400, 2000, field]);
    }
    expect(await counts()).toEqual(before);
  });
});
