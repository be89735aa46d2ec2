/** The devnet binds loopback unless DEVNET_HOST says otherwise (0.0.0.0 in docker-compose.yml). */
import { ConfigError, loadConfig } from '../../infra/devnet/src/config';

test('DEVNET_HOST: loopback by default, an address or host name when set, refused otherwise', () => {
  expect(loadConfig({}, '/tmp').host).toBe('127.0.0.1');
  expect(loadConfig({ DEVNET_HOST: '' }, '/tmp').host).toBe('127.0.0.1');
  expect(loadConfig({ DEVNET_HOST: '0.0.0.0' }, '/tmp').host).toBe('0.0.0.0');
  expect(loadConfig({ DEVNET_HOST: '::' }, '/tmp').host).toBe('::');
  expect(() => loadConfig({ DEVNET_HOST: 'a b' }, '/tmp')).toThrow(ConfigError);
  expect(() => loadConfig({ DEVNET_HOST: 'x;rm' }, '/tmp')).toThrow(/DEVNET_HOST/);
});
