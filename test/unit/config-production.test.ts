/** Production settings of services/platform/config.ts (issue 30): proxies, explicit network and domain, role secrets. */
import { configForRoles, needsPoolKeys } from '../../services/platform/role-secrets';
import { isAddressOrCidr, parseConfig } from '../../services/platform/config';
import { freshKeys } from './support/keys';

const keys = freshKeys();

test('TRUSTED_PROXIES: addresses and CIDRs of either family, anything else refused with the entry named', () => {
  expect(parseConfig({ ...keys, NETWORK: 'nile', TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7,::1,fd00::/8' }).TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8']);
  expect(parseConfig({ ...keys, NETWORK: 'nile' }).TRUSTED_PROXIES).toEqual([]);
  for (const bad of ['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.1/8/1', '10.0.0/8', '1.2.3.4/x']) {
    expect(isAddressOrCidr(bad)).toBe(false);
    expect(() => parseConfig({ ...keys, NETWORK: 'nile', TRUSTED_PROXIES: `127.0.0.1,${bad}` })).toThrow(new RegExp(`TRUSTED_PROXIES: ${bad.replace(/[./]/g, '\\$&')}: not an IP address or CIDR`));
  }
});

test('NETWORK is required outside the local and test profiles; there its default is nile', () => {
  for (const profile of [undefined, 'production', 'nile']) {
    expect(() => parseConfig({ ...keys, STACK_PROFILE: profile })).toThrow(/NETWORK: required/);
  }
  for (const profile of ['local', 'test']) expect(parseConfig({ ...keys, STACK_PROFILE: profile }).NETWORK).toBe('nile');
  expect(parseConfig({ ...keys, NETWORK: 'nile', STACK_PROFILE: 'production' }).SERVICE_DOMAIN).toBe('localhost');
});

test('mainnet names every missing deployment setting at once, and starts with them', () => {
  expect(() => parseConfig({ ...keys, NETWORK: 'mainnet' })).toThrow(/SERVICE_DOMAIN: required[\s\S]*DEPOSIT_XPUB: required/);
  const xpub = 'xpub6BuRy7ZmkGfP2RWhoor1kWB1w9DvrtmJbFBvnC1bQ4SB5NbCHTyQYCJSXZtxDbFyHTmC7wkU2he3nYYdpZ3Vf6qUAkXSnL6RPif4BDtDEKr';
  expect(() => parseConfig({ ...keys, NETWORK: 'mainnet', DEPOSIT_XPUB: xpub })).toThrow(/SERVICE_DOMAIN: required/);
  expect(parseConfig({ ...keys, NETWORK: 'mainnet', DEPOSIT_XPUB: xpub, SERVICE_DOMAIN: 'energy.example' }).SERVICE_DOMAIN).toBe('energy.example');
  // Missing secret keys are named beside the deployment problems, not after a second start.
  expect(() => parseConfig({ NETWORK: 'mainnet' })).toThrow(/SERVICE_DOMAIN[\s\S]*API_KEY_ENCRYPTION_KEY: required/);
});

test('only the roles that sign or read the pool keep POOL_PRIVATE_KEYS', () => {
  const cfg = parseConfig({ ...keys, NETWORK: 'nile', POOL_PRIVATE_KEYS: 'ab'.repeat(32) });
  expect(configForRoles(cfg, ['api']).POOL_PRIVATE_KEYS).toBeUndefined();
  expect(configForRoles(cfg, ['api', 'processor', 'relay', 'dispatcher', 'stats']).POOL_PRIVATE_KEYS).toBeUndefined();
  for (const role of ['broadcaster', 'scheduler', 'promo-granter', 'reconciler', 'subscription-watcher']) {
    expect(needsPoolKeys(['api', role])).toBe(true);
    expect(configForRoles(cfg, ['api', role]).POOL_PRIVATE_KEYS).toBe('ab'.repeat(32));
  }
  // The rest of the configuration is untouched.
  expect(configForRoles(cfg, ['api'])).toEqual({ ...cfg, POOL_PRIVATE_KEYS: undefined });
});

test('the OTLP exporter needs its collector named', () => {
  expect(() => parseConfig({ ...keys, NETWORK: 'nile', OTEL_TRACES_EXPORTER: 'otlp' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT: required/);
  expect(parseConfig({ ...keys, NETWORK: 'nile', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example:4318' }).OTEL_EXPORTER_OTLP_ENDPOINT).toBe('https://otel.example:4318');
});
