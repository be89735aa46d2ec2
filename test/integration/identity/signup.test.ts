/**
 * The signup path as a new customer walks it, on the real stack with real TronWeb signatures: fresh
 * keypair, challenge, signMessageV2, verify, create the account, read the deposit address, issue the
 * first key, and GET /v1/account with a signed request. Then the challenge's failure answers.
 */
import { depositAddressAt } from '../../../services/chain/deposit-derivation';
import { replayAndVerify } from '../../../services/ops/replay';
import { call, newWallet, sign, signedCall, signedChallenge, startIdentityStack, type IdentityStack } from '../../support/identity';
import { templateReplay } from '../../support/world';

let stack: IdentityStack;
beforeAll(async () => {
  stack = await startIdentityStack('signup');
});
afterAll(async () => {
  await stack?.stop();
});

test('a new customer signs up, reads its deposit address, issues a key and reads its account with a signed request', async () => {
  const { base, rt } = stack;
  const wallet = await newWallet();

  const challenge = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: wallet.address, purpose: 'signup' } });
  expect(challenge.status).toBe(201);
  expect(challenge.body).toMatchObject({ address: wallet.address, purpose: 'signup' });
  expect(challenge.body.message).toContain(`Address: ${wallet.address}`);
  expect(challenge.body.message).toContain(`Nonce: ${challenge.body.nonce}`);
  expect(challenge.body.message).toContain(`Domain: ${rt.cfg.SERVICE_DOMAIN}`);
  expect(Date.parse(challenge.body.expires_at) - Date.parse(challenge.body.issued_at)).toBe(600_000);

  const signature = sign(challenge.body.message, wallet);
  const verified = await call(base, 'POST', '/v1/accounts/challenge/verify', { body: { address: wallet.address, nonce: challenge.body.nonce, signature } });
  expect(verified.status).toBe(200);
  expect(verified.body).toMatchObject({ account_id: null, account_status: null });
  expect(verified.body.bootstrap_token).toMatch(/^abt_/);
  const bearer = { authorization: `Bearer ${verified.body.bootstrap_token}` };

  const created = await call(base, 'POST', '/v1/accounts', { body: { address: wallet.address, email: 'me@example.com', label: '  My shop ' }, headers: bearer });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ brand: rt.cfg.BRAND, network: 'nile', status: 'unfunded', owner_address: wallet.address });
  const depositAddress = created.body.deposit_addresses[0].address;
  expect(created.body.deposit_addresses.map((d: any) => [d.currency, d.address])).toEqual([['TRX', depositAddress], ['USDT', depositAddress]]);
  expect(created.body.next).toMatchObject({ action: 'deposit', address: depositAddress });
  // Derived from the configured xpub at the index the API drew; the service holds no private key.
  const { rows } = await rt.pool.query('SELECT deposit_index FROM accounts WHERE id = $1', [created.body.account_id]);
  expect(depositAddressAt(rt.cfg.DEPOSIT_XPUB, rows[0].deposit_index)).toBe(depositAddress);

  const again = await call(base, 'POST', '/v1/accounts', { body: { address: wallet.address }, headers: bearer });
  expect(again.status).toBe(200);
  expect(again.body.account_id).toBe(created.body.account_id);
  expect(again.body.deposit_addresses[0].address).toBe(depositAddress);

  const deposit = await call(base, 'GET', '/v1/accounts/deposit-address?currency=USDT', { headers: bearer });
  expect(deposit.status).toBe(200);
  expect(deposit.body).toMatchObject({ account_id: created.body.account_id, status: 'unfunded', data: [{ currency: 'USDT', address: depositAddress, memo: null }] });

  const key = await call(base, 'POST', '/v1/api-keys', { body: { name: 'server' }, headers: bearer });
  expect(key.status).toBe(201);
  expect(key.body).toMatchObject({ name: 'server', last_used_at: null });
  expect(key.body.id).toMatch(/^key_/);
  expect(typeof key.body.secret).toBe('string');
  // Stored encrypted: the secret is nowhere in the table.
  const stored = await rt.pool.query('SELECT secret_enc AS s FROM api_keys WHERE id = $1', [key.body.id]);
  expect(stored.rows[0].s).not.toContain(key.body.secret);

  const account = await signedCall(base, { id: key.body.id, secret: key.body.secret }, 'GET', '/v1/account');
  expect(account.status).toBe(200);
  expect(account.body).toMatchObject({
    id: created.body.account_id, owner_address: wallet.address, display_name: 'My shop', label: 'My shop', status: 'unfunded',
    balance_sun: 0, limits: { max_order_energy: 10_000_000, max_batch_receivers: 100, orders_per_second: 20 },
  });
  const addresses = await signedCall(base, { id: key.body.id, secret: key.body.secret }, 'GET', '/v1/deposit-addresses');
  expect(addresses.status).toBe(200);
  expect(addresses.body).toMatchObject({ data: [{ address: depositAddress }, { address: depositAddress }], retired: [], rotation: { by: 'support' } });
});

test('one-shot creation with nonce and signature, and two concurrent creates for one address answer one account', async () => {
  const { base } = stack;
  const wallet = await newWallet();
  const [a, b] = await Promise.all([
    signedChallenge(base, wallet).then((proof) => call(base, 'POST', '/v1/accounts', { body: proof })),
    signedChallenge(base, wallet).then((proof) => call(base, 'POST', '/v1/accounts', { body: proof })),
  ]);
  expect([a.status, b.status].sort()).toEqual([200, 201]);
  expect(a.body.account_id).toBe(b.body.account_id);
  expect(a.body.deposit_addresses[0].address).toBe(b.body.deposit_addresses[0].address);
});

test('unknown, reused, expired-looking, foreign and wrongly signed nonces all answer the same 1010', async () => {
  const { base } = stack;
  const wallet = await newWallet();
  const other = await newWallet();
  const bodies: string[] = [];
  const expect1010 = async (body: unknown) => {
    const res = await call(base, 'POST', '/v1/accounts/challenge/verify', { body });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 1010, slug: 'challenge_invalid' });
    bodies.push(res.text.replace(/"request_id":"req_[0-9a-f]+"/, ''));
  };
  const good = await signedChallenge(base, wallet);
  await call(base, 'POST', '/v1/accounts/challenge/verify', { body: good });
  await expect1010(good); // reused
  await expect1010({ ...good, nonce: 'f'.repeat(32) }); // unknown
  const foreign = await signedChallenge(base, other);
  await expect1010({ ...foreign, address: wallet.address }); // issued to another address
  const wrong = await signedChallenge(base, wallet);
  const c = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: wallet.address } });
  await expect1010({ address: wallet.address, nonce: c.body.nonce, signature: wrong.signature }); // signed another message
  await expect1010({ address: wallet.address, nonce: wrong.nonce, signature: sign('x', other) }); // wrong signer
  const expired = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: other.address } });
  await stack.rt.pool.query("UPDATE auth_challenges SET expires_at = now() - interval '1 second' WHERE nonce = $1", [expired.body.nonce]);
  await expect1010({ address: other.address, nonce: expired.body.nonce, signature: sign(expired.body.message, other) }); // expired
  expect(new Set(bodies).size).toBe(1);
});

test('a challenge for an address with an account is indistinguishable from one without', async () => {
  const { base } = stack;
  const owner = await newWallet();
  await call(base, 'POST', '/v1/accounts', { body: await signedChallenge(base, owner) });
  const stranger = await newWallet();
  const shape = (r: any) => Object.keys(r.body).sort().join(',') + r.status;
  const a = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: owner.address } });
  const b = await call(base, 'POST', '/v1/accounts/challenge', { body: { address: stranger.address } });
  expect(shape(a)).toBe(shape(b));
  expect(a.body.message.replace(owner.address, 'A').replace(/Nonce: \w+/, '').replace(/\d{4}-\S+/g, ''))
    .toBe(b.body.message.replace(stranger.address, 'A').replace(/Nonce: \w+/, '').replace(/\d{4}-\S+/g, ''));
});

test('a replay of the log rebuilds the accounts with their deposit addresses', async () => {
  const report = await replayAndVerify(stack.rt, templateReplay);
  expect(report.tables.filter((t) => t.differences.length > 0)).toEqual([]);
});
