#!/usr/bin/env node
/**
 * The README's quick start, after `make up`: signs up a fresh wallet the way a customer does (challenge,
 * TIP-191 signature, bootstrap token, account, first API key), credits it with the ops tool (a support
 * adjustment: local stacks only, instead of a devnet deposit), places one signed order and prints what the
 * next steps need: the wallet and its private key, the API key id and secret, and the order.
 *
 *   node examples/quickstart.mjs            # API_BASE or API_PORT (3000), TRON_FULL_HOST or DEVNET_PORT (8090)
 *   node examples/quickstart.mjs --json     # the same as one JSON object, for scripts
 *
 * Only tronweb and node:crypto: the signing is the contract's (README "Sign up and make your first signed request").
 */
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TronWeb } from 'tronweb';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const base = process.env.API_BASE ?? `http://127.0.0.1:${process.env.API_PORT ?? 3000}`;
const tronWeb = new TronWeb({ fullHost: process.env.TRON_FULL_HOST ?? `http://127.0.0.1:${process.env.DEVNET_PORT ?? 8090}` });
const asJson = process.argv.includes('--json');

async function api(method, target, body, headers = {}) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const res = await fetch(base + target, { method, body: raw || undefined, headers: { ...(raw ? { 'content-type': 'application/json' } : {}), ...headers } });
  const answer = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${target}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** X-API-SIGN = base64(HMAC_SHA256(secret, TIMESTAMP + "." + METHOD + "." + PATH + "." + BODY)), millisecond timestamps. */
function signed(key, method, target, body) {
  const ts = String(Date.now());
  const raw = body === undefined ? '' : JSON.stringify(body);
  const sign = createHmac('sha256', key.secret).update(`${ts}.${method}.${target}.${raw}`).digest('base64');
  return api(method, target, body, { 'X-API-KEY': key.id, 'X-API-TIMESTAMP': ts, 'X-API-SIGN': sign });
}

const wallet = await TronWeb.createAccount();
const address = wallet.address.base58;
const challenge = await api('POST', '/v1/accounts/challenge', { address, purpose: 'signup' });
const signature = tronWeb.trx.signMessageV2(challenge.message, wallet.privateKey);
const boot = await api('POST', '/v1/accounts/challenge/verify', { address, nonce: challenge.nonce, signature });
const bearer = { authorization: `Bearer ${boot.bootstrap_token}` };
const account = await api('POST', '/v1/accounts', { address, label: 'quickstart' }, bearer);
const key = await api('POST', '/v1/api-keys', { name: 'quickstart' }, bearer);

// 100 TRX by a support adjustment: the ops tool with this checkout's stack settings (the profile `make up`
// started, local unless STACK_PROFILE says otherwise; outside a profile the tool needs NETWORK and the keys).
// Not execFileSync: a blocked event loop would not see the API close an idle keep-alive socket, and the next
// request would fail on it.
const ops = [process.env.STACK_PROFILE ?? 'local', '--', path.join(root, 'bin/ops'), 'adjust', '--account', account.account_id, '--amount-sun', '100000000', '--memo', 'quickstart'];
const { stdout: journal } = await promisify(execFile)(path.join(root, 'infra/env/load.sh'), ops, { encoding: 'utf8' });

const receiver = (await TronWeb.createAccount()).address.base58;
const order = await signed(key, 'POST', '/v1/orders', { resource: 'energy', amount: 65_000, tier: '1h', receiver, client_order_id: `quickstart-${Date.now()}` });

const result = {
  wallet: { address, private_key: wallet.privateKey },
  account_id: account.account_id,
  deposit_address: account.deposit_addresses?.[0]?.address ?? null,
  api_key: { id: key.id, secret: key.secret },
  funding_journal: journal.trim(),
  order: { id: order.id, status: order.status, receiver: order.receiver, total_amount_sun: order.total_amount_sun },
};
if (asJson) {
  console.log(JSON.stringify(result));
} else {
  console.log(`wallet          ${address}`);
  console.log(`wallet key      ${wallet.privateKey}   (keep it: it signs you in to the dashboard)`);
  console.log(`account         ${account.account_id}, deposit address ${result.deposit_address}`);
  console.log(`API key id      ${key.id}`);
  console.log(`API key secret  ${key.secret}   (shown once: store it)`);
  console.log(`order           ${order.id} ${order.status}: ${order.amount} energy for ${order.tier} to ${receiver}, ${order.total_amount_sun} SUN`);
  console.log(`next: poll it   GET ${base}/v1/orders/${order.id} signed with the key above (README "The typed client")`);
}
