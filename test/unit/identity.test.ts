import { createHmac } from 'node:crypto';
import { emptyIdentity, emptyTotals, type Account } from '../../services/domain/account';
import { applyCommand } from '../../services/domain/apply';
import { rotationBlockedUntil } from '../../services/domain/deposit-rotation';
import { isTronAddress } from '../../services/chain/address';
import { challengeMessage } from '../../services/identity/challenge-message';
import { depositAddressAt } from '../../services/chain/deposit-derivation';
import { canonicalRequest, signatureMatches, signRequest, timestampInWindow } from '../../services/identity/request-signing';
import { cleanTitle } from '../../services/identity/text-rules';
import { devDefaults, parseConfig } from '../../services/platform/config';
import { freshKeys } from './support/keys';

const DAY = 86_400_000;
const ctx = { network: 'nile' as const, brand: 'energy' };

function account(overrides: Partial<Account> = {}): Account {
  return {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: 'T1', displayName: null, status: 'unfunded', balanceSun: 0n,
    balanceUsdt: 0n, reservedSun: 0n, totals: emptyTotals(), ...emptyIdentity(), depositAddress: 'TA', depositIndex: 0,
    depositIssuedAt: 0, createdAt: 0, updatedAt: 0, ...overrides,
  };
}

test('deposit addresses derive from the xpub at m/44\'/195\'/0\'/0/i (the test mnemonic\'s first address)', () => {
  expect(depositAddressAt(devDefaults.DEPOSIT_XPUB, 0)).toBe('TWer2Ygk5TEheHp3TPuYeqxmB6SsGZmaL6');
  expect(depositAddressAt(devDefaults.DEPOSIT_XPUB, 1)).not.toBe(depositAddressAt(devDefaults.DEPOSIT_XPUB, 0));
});

test('mainnet refuses to start without DEPOSIT_XPUB; the secret keys are required everywhere', () => {
  expect(() => parseConfig({ NETWORK: 'mainnet', ...freshKeys() })).toThrow(/DEPOSIT_XPUB/);
  expect(() => parseConfig({ NETWORK: 'nile', WEBHOOK_SECRET_KEY: 'a'.repeat(64) })).toThrow(/API_KEY_ENCRYPTION_KEY/);
  expect(parseConfig({ ...freshKeys() }).DEPOSIT_XPUB).toBe(devDefaults.DEPOSIT_XPUB);
});

test('addresses need a valid checksum, not only the shape', () => {
  expect(isTronAddress('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')).toBe(true);
  expect(isTronAddress('TJRabPrwbZy45sbavfcjinPJC18kjpRTv9')).toBe(false);
});

test('the challenge message carries domain, purpose, address, nonce and expiry', () => {
  const text = challengeMessage({ domain: 'api.example', network: 'nile', purpose: 'login', address: 'TX', nonce: 'n1', issuedAt: 'i', expiresAt: 'e' });
  for (const part of ['Domain: api.example', 'Purpose: login', 'Address: TX', 'Nonce: n1', 'Expiration Time: e']) expect(text).toContain(part);
});

test('signed requests: canonical string, constant-time comparison, ±300 s window', () => {
  const sig = signRequest('s', '100', 'get', '/v1/orders?limit=10', '');
  expect(sig).toBe(signRequest('s', '100', 'GET', '/v1/orders?limit=10', Buffer.alloc(0)));
  // The HMAC is over canonicalRequest's exact bytes, whether the body comes as text or as the raw bytes.
  const body = '{"memo":"é ✓","amount":1}';
  const whole = createHmac('sha256', 's').update(canonicalRequest('100', 'post', '/v1/orders', body)).digest('base64');
  expect([signRequest('s', '100', 'post', '/v1/orders', body), signRequest('s', '100', 'POST', '/v1/orders', Buffer.from(body))]).toEqual([whole, whole]);
  expect(signRequest('s', '100', 'POST', '/v1/orders', `${body} `)).not.toBe(whole);
  expect(signatureMatches(sig, sig)).toBe(true);
  expect(signatureMatches(sig, sig.slice(1))).toBe(false);
  expect(timestampInWindow('1000', 1_300_000)).toBe(true);
  expect(timestampInWindow('999', 1_300_000)).toBe(false);
  expect(timestampInWindow('1e3', 1_000_000)).toBe(false);
});

test('titles are trimmed, not blank, without control characters, at most 64 characters', () => {
  expect(cleanTitle('  a  ', 64)).toEqual({ ok: true, value: 'a' });
  expect(cleanTitle('   ', 64).ok).toBe(false);
  expect(cleanTitle('a\nb', 64).ok).toBe(false);
  expect(cleanTitle(` ${'x'.repeat(64)} `, 64).ok).toBe(true);
  expect(cleanTitle('x'.repeat(65), 64).ok).toBe(false);
});

describe('deposit address rotation limits', () => {
  const retired = (at: number) => ({ address: `T${at}`, derivationIndex: 1, retiredAt: at, creditedUntil: at + 30 * DAY });
  test('once per 30 days, 3 per 365 days', () => {
    expect(rotationBlockedUntil(account(), 10 * DAY)).toBeNull();
    expect(rotationBlockedUntil(account({ retiredDepositAddresses: [retired(100 * DAY)] }), 110 * DAY)).toBe(130 * DAY);
    const three = [retired(200 * DAY), retired(150 * DAY), retired(100 * DAY)];
    expect(rotationBlockedUntil(account({ retiredDepositAddresses: three }), 240 * DAY)).toBe(465 * DAY);
  });
  test('a first issue never replaces an existing address; a rotation emits deposit_address.rotated', () => {
    const base = { commandId: 'cmd_r', accountId: 'acc_1', issuedAt: 40 * DAY, deadlineAt: null, replyTo: null, type: 'deposit_address.assign' as const, address: 'TB', derivationIndex: 2 };
    expect(applyCommand({ account: () => account() }, { ...base, reason: 'issue' }, ctx)).toMatchObject({ kind: 'applied', effects: { accounts: [] } });
    const outcome = applyCommand({ account: () => account() }, { ...base, reason: 'rotate' }, ctx);
    expect(outcome).toMatchObject({ kind: 'applied', effects: { events: [{ type: 'deposit_address.rotated', data: { address: 'TB', retired_address: 'TA' } }] } });
  });
});
