/**
 * infra/env/keys.sh: per-installation secret keys for the local and test profiles, written once
 * (mode 600, two random 64-hex keys), never replaced; infra/env/load.sh loads them for those profiles only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const keysOf = (file: string) => Object.fromEntries(readFileSync(file, 'utf8').split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')));

test('keys.sh writes two fresh keys once, private to the owner, and keeps them on the next run', () => {
  const a = mkdtempSync(path.join(tmpdir(), 'keys-'));
  const b = mkdtempSync(path.join(tmpdir(), 'keys-'));
  execFileSync(path.join(root, 'infra/env/keys.sh'), [a]);
  execFileSync(path.join(root, 'infra/env/keys.sh'), [b]);
  const first = keysOf(path.join(a, 'keys.env'));
  expect(Object.keys(first).sort()).toEqual(['API_KEY_ENCRYPTION_KEY', 'WEBHOOK_SECRET_KEY']);
  for (const v of Object.values(first)) expect(v).toMatch(/^[0-9a-f]{64}$/);
  expect(first.API_KEY_ENCRYPTION_KEY).not.toBe(first.WEBHOOK_SECRET_KEY);
  expect(keysOf(path.join(b, 'keys.env'))).not.toEqual(first);
  expect(statSync(path.join(a, 'keys.env')).mode & 0o777).toBe(0o600);
  execFileSync(path.join(root, 'infra/env/keys.sh'), [a]);
  expect(keysOf(path.join(a, 'keys.env'))).toEqual(first);
});

test('load.sh loads the keys for the local and test profiles, not for another profile; the caller\'s values win', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'stack-'));
  const run = (profile: string, extra: Record<string, string> = {}) => execFileSync(path.join(root, 'infra/env/load.sh'), [profile, '--', 'bash', '-c', 'echo "${API_KEY_ENCRYPTION_KEY:-none} ${STACK_PROFILE}"'], {
    env: { PATH: process.env.PATH!, STACK_DIR: dir, ...extra }, encoding: 'utf8',
  }).trim();
  const [key, profile] = run('test').split(' ');
  expect(profile).toBe('test');
  expect(key).toBe(keysOf(path.join(dir, 'keys.env')).API_KEY_ENCRYPTION_KEY);
  expect(run('test', { API_KEY_ENCRYPTION_KEY: 'c'.repeat(64) })).toBe(`${'c'.repeat(64)} test`);
  const custom = path.join(dir, 'nile.env');
  writeFileSync(custom, 'NETWORK=nile\n');
  expect(run(custom)).toBe('none nile');
});
