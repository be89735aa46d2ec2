/**
 * Issue 31, item 7: the unambiguous request fingerprint (old fingerprints still match), AES-GCM with the
 * full tag only, the wider CSV formula guard, the redaction list, one refusal for every name refused,
 * and deep JSON refused before parsing.
 */
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import pino from 'pino';

import { MAX_DEPTH, nestingDepth } from '../../../services/api/body';
import { csvCell } from '../../../services/api/views/orders-csv';
import { requestHash, sameRequest } from '../../../services/domain/orders/rules';
import { redactedPaths } from '../../../services/platform/logger';
import { openSecret, sealSecret } from '../../../services/platform/secret-box';
import { checkTarget, type Resolver } from '../../../services/webhooks/url-check';

/** The fingerprint as stored before v2: `k=v` joined with `&`, unescaped. */
const legacy = (fields: Record<string, unknown>) =>
  createHash('sha256').update(Object.keys(fields).sort().filter((k) => fields[k] != null).map((k) => `${k}=${String(fields[k])}`).join('&')).digest('hex');

describe('request fingerprint', () => {
  const a = { resource: 'energy', amount: 65_000, memo: 'x&quote_id=q', quote_id: null };
  const b = { resource: 'energy', amount: 65_000, memo: 'x', quote_id: 'q' };

  it('a memo holding `&quote_id=q` no longer fingerprints like a body with that quote', () => {
    expect(legacy(a)).toBe(legacy(b)); // the collision of the old form
    expect(sameRequest(requestHash(a), requestHash(b))).toBe(false);
    expect(sameRequest(requestHash(a), requestHash({ ...a }))).toBe(true);
  });

  it('key order and absent vs null do not matter', () => {
    expect(requestHash({ amount: 1, resource: 'energy', memo: null })).toBe(requestHash({ resource: 'energy', amount: 1 }));
  });

  it('a fingerprint stored before v2 still matches its original body, and not another', () => {
    expect(sameRequest(legacy(b), requestHash(b))).toBe(true);
    expect(sameRequest(legacy(b), requestHash({ ...b, amount: 1 }))).toBe(false);
  });
});

describe('sealed secrets', () => {
  const key = randomBytes(32).toString('hex');

  it('open round-trips and refuses a truncated tag', () => {
    expect(openSecret(key, sealSecret(key, 'whsec_abc', 'webhook:1'), 'webhook:1')).toBe('whsec_abc');
    // An empty secret sealed, then cut to iv + the first 4 tag bytes: GCM without authTagLength took it.
    const raw = Buffer.from(sealSecret(key, '', 'ctx').slice(3), 'base64url');
    const truncated = `v1.${raw.subarray(0, 16).toString('base64url')}`;
    expect(() => openSecret(key, truncated, 'ctx')).toThrow();
  });
});

describe('CSV formula guard', () => {
  it.each(['＝1+1', '＋1', '－1', '＠SUM(A1)', ' =1+1', ' x', '\t=1', '=1', '+1', '-1', '@x'])('%j gets the quote prefix', (text) => {
    expect(csvCell(text).replace(/^"/, '').startsWith("'")).toBe(true);
  });

  it('plain text and numbers are left as they are', () => {
    expect(csvCell('abc')).toBe('abc');
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(['=x', 'y'])).toBe("'=x y");
  });
});

describe('log redaction', () => {
  it('csrf tokens, set-cookie, private keys and tokens never reach a line', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const log = pino({ redact: { paths: redactedPaths, censor: '[redacted]' } }, sink);
    log.info({
      headers: { 'x-csrf-token': 'csrf-1', 'set-cookie': 'session=s-1', cookie: 'session=s-2', authorization: 'Bearer abt_1' },
      res: { headers: { 'set-cookie': 'session=s-3' } },
      privateKey: 'pk-1', wallet: { privateKey: 'pk-2' }, token: 'tok-1', ticket: { token: 'tok-2' },
    }, 'x');
    const line = lines.join('');
    for (const secret of ['csrf-1', 's-1', 's-2', 'abt_1', 's-3', 'pk-1', 'pk-2', 'tok-1', 'tok-2']) expect(line).not.toContain(secret);
  });
});

describe('webhook URL refusal', () => {
  const resolve: Resolver = async (host) => {
    if (host === 'inside.example.com') return [{ address: '10.0.0.7', family: 4 }];
    throw new Error('ENOTFOUND');
  };

  it('a name resolving inside and a name not resolving at all get the same refusal', async () => {
    const inside = await checkTarget('https://inside.example.com/x', { allowPrivate: false, resolve });
    const nowhere = await checkTarget('https://nowhere.example.com/x', { allowPrivate: false, resolve });
    expect(inside).toEqual(nowhere);
    expect(inside).toMatchObject({ ok: false, reason: 'forbidden_address' });
  });
});

describe('deep JSON', () => {
  it('nesting depth ignores brackets inside strings', () => {
    expect(nestingDepth('{"a":[1,{"b":"[[[[{{{{"}]}')).toBe(3);
    expect(nestingDepth('"\\"[["')).toBe(0);
    expect(nestingDepth('['.repeat(100_000))).toBe(100_000);
    expect(MAX_DEPTH).toBeLessThan(100);
  });
});
