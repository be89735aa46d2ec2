import { parseConfig } from '../../services/platform/config';
import { scaledClock, SteppedClock } from '../../services/platform/clock';
import { parseJson, stringifyJson } from '../../services/platform/json';

describe('config', () => {
  it('applies defaults and names topics after the network', () => {
    const cfg = parseConfig({});
    expect(cfg.NETWORK).toBe('nile');
    expect(cfg.topicPrefix).toBe('nile.');
    expect(cfg.API_PORT).toBe(3000);
  });
  it('fails fast with every problem named', () => {
    expect(() => parseConfig({ API_PORT: 'x', NETWORK: 'moon' })).toThrow(/API_PORT[\s\S]*NETWORK|NETWORK[\s\S]*API_PORT/);
  });
  it('refuses private webhook targets on mainnet', () => {
    expect(() => parseConfig({ NETWORK: 'mainnet', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(/mainnet/);
    expect(parseConfig({ NETWORK: 'nile', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
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
