import { parseConfig } from '../../services/platform/config';
import { scaledClock, SteppedClock } from '../../services/platform/clock';
import { parseJson, stringifyJson } from '../../services/platform/json';
import { freshKeys } from './support/keys';

describe('config', () => {
  it('applies defaults and names topics after the network', () => {
    const cfg = parseConfig({ ...freshKeys(), STACK_PROFILE: 'test' });
    expect(cfg.NETWORK).toBe('nile');
    expect(cfg.topicPrefix).toBe('nile.');
    expect(cfg.API_PORT).toBe(3000);
  });
  it('fails fast with every problem named', () => {
    expect(() => parseConfig({ API_PORT: 'x', NETWORK: 'moon' })).toThrow(/API_PORT[\s\S]*NETWORK|NETWORK[\s\S]*API_PORT/);
  });
  it('opens private webhook targets on the local and test profiles only, never on mainnet', () => {
    const keys = freshKeys();
    expect(() => parseConfig({ ...keys, NETWORK: 'mainnet', STACK_PROFILE: 'local', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(/mainnet/);
    for (const profile of [undefined, 'nile', 'production']) {
      expect(() => parseConfig({ ...keys, NETWORK: 'nile', STACK_PROFILE: profile, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
    }
    for (const profile of ['local', 'test']) {
      expect(parseConfig({ ...keys, NETWORK: 'nile', STACK_PROFILE: profile, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    }
  });
  it('refuses to start without real secret keys on every network and profile', () => {
    const keys = freshKeys();
    for (const env of [{}, { NETWORK: 'nile' }, { STACK_PROFILE: 'local' }, { STACK_PROFILE: 'test' }]) {
      expect(() => parseConfig({ ...env, WEBHOOK_SECRET_KEY: keys.WEBHOOK_SECRET_KEY })).toThrow(/API_KEY_ENCRYPTION_KEY: required/);
      expect(() => parseConfig({ ...env, API_KEY_ENCRYPTION_KEY: keys.API_KEY_ENCRYPTION_KEY })).toThrow(/WEBHOOK_SECRET_KEY: required/);
    }
    expect(() => parseConfig({ ...keys, API_KEY_ENCRYPTION_KEY: 'ab' })).toThrow(/64 hex/);
    // The constants earlier versions shipped, and patterned values, are not keys on any profile.
    for (const published of ['6465762d6f6e6c792d6170692d6b65792d656e6372797074696f6e2d6b657921', 'a'.repeat(64), 'ab'.repeat(32)]) {
      expect(() => parseConfig({ ...keys, STACK_PROFILE: 'local', API_KEY_ENCRYPTION_KEY: published })).toThrow(/not a key/);
    }
    expect(() => parseConfig({ ...keys, WEBHOOK_SECRET_KEY: '6465762d6f6e6c792d776562686f6f6b2d7365637265742d6b65792d2d2d2d21' })).toThrow(/not a key/);
  });
  it('reads with the previous key during a rotation; the retired public dev keys only on local and test', () => {
    const keys = freshKeys();
    const previous = freshKeys().API_KEY_ENCRYPTION_KEY;
    const rotating = parseConfig({ ...keys, API_KEY_ENCRYPTION_KEY_PREVIOUS: previous, STACK_PROFILE: 'nile', NETWORK: 'nile' });
    expect(rotating.API_KEY_DECRYPTION_KEYS).toEqual([keys.API_KEY_ENCRYPTION_KEY, previous]);
    expect(rotating.WEBHOOK_DECRYPTION_KEYS).toEqual([keys.WEBHOOK_SECRET_KEY]);
    expect(parseConfig({ ...keys, STACK_PROFILE: 'local' }).API_KEY_DECRYPTION_KEYS).toHaveLength(2);
    expect(parseConfig({ ...keys, NETWORK: 'nile' }).API_KEY_DECRYPTION_KEYS).toEqual([keys.API_KEY_ENCRYPTION_KEY]);
  });
});

describe('clock', () => {
  it('a stepped clock moves only when told', () => {
    const c = new SteppedClock(1000);
    c.advance(500);
    expect(c.now()).toBe(1500);
  });
  it('a scaled clock shortens real waits', () => {
    expect(scaledClock(60).realDelay(60_000)).toBe(1000);
    expect(scaledClock(1).realDelay(10)).toBe(10);
  });
});

describe('lossless JSON', () => {
  it('keeps int64 exact both ways', () => {
    const parsed = parseJson('{"a": 9223372036854775807, "b": 12, "c": 1.5}') as Record<string, unknown>;
    expect(parsed.a).toBe(9223372036854775807n);
    expect(parsed.b).toBe(12);
    expect(stringifyJson({ a: 9223372036854775807n })).toBe('{"a":9223372036854775807}');
  });
  it('throws on malformed text', () => {
    expect(() => parseJson('{"a":')).toThrow();
  });
});
