/**
 * The Kafka and schema-registry security settings (services/platform/config.ts, kafka-security.ts): pairs
 * given by halves and TLS files without KAFKA_TLS are refused with every problem named; the files are read
 * once into what kafkajs is handed. The SCRAM exchange itself is tested against a real broker
 * (test/integration/platform/kafka-tls.test.ts). Also the relay's delivery-latency sample of an order.active event.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../services/platform/config';
import { kafkajsSecurity } from '../../services/platform/kafka';
import { kafkaSecurity } from '../../services/platform/kafka-security';
import { deliverySeconds } from '../../services/relay/relay';
import { freshKeys } from './support/keys';

const base = { ...freshKeys(), NETWORK: 'nile' };

test('half-given pairs and TLS files without KAFKA_TLS are refused, each named', () => {
  expect(() => parseConfig({ ...base, KAFKA_TLS_CERT_FILE: '/c.pem' })).toThrow(/KAFKA_TLS_KEY_FILE: required with KAFKA_TLS_CERT_FILE[\s\S]*KAFKA_TLS: must be true/);
  expect(() => parseConfig({ ...base, KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u' })).toThrow(/KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM/);
  expect(() => parseConfig({ ...base, KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toThrow(/KAFKA_SASL_MECHANISM: required/);
  expect(() => parseConfig({ ...base, KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toThrow(/KAFKA_SASL_MECHANISM/);
  expect(() => parseConfig({ ...base, SCHEMA_REGISTRY_USERNAME: 'u' })).toThrow(/SCHEMA_REGISTRY_PASSWORD: required with SCHEMA_REGISTRY_USERNAME/);
  expect(() => parseConfig({ ...base, SCHEMA_REGISTRY_CA_FILE: '/ca.pem' })).toThrow(/SCHEMA_REGISTRY_CA_FILE: only with an https/);
});

test('the files are read into kafkajs options; nothing set is plaintext without authentication', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-security-'));
  try {
    fs.writeFileSync(path.join(dir, 'ca.pem'), 'CA');
    const cfg = parseConfig({
      ...base, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: path.join(dir, 'ca.pem'), KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p',
    });
    const options = kafkajsSecurity(kafkaSecurity(cfg));
    expect(options).toEqual({ ssl: { ca: Buffer.from('CA') }, sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' } });
    expect(kafkajsSecurity(kafkaSecurity(parseConfig(base)))).toEqual({});
    expect(() => kafkaSecurity({ ...cfg, KAFKA_TLS_CA_FILE: path.join(dir, 'missing.pem') })).toThrow(/KAFKA_TLS_CA_FILE: ENOENT/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an order.active event gives its order\'s created-to-active seconds', () => {
  expect(deliverySeconds({ type: 'order.active', occurredAt: Date.parse('2026-01-01T00:00:02.500Z'), order: { created_at: '2026-01-01T00:00:00.000Z' } })).toBe(2.5);
  expect(deliverySeconds({ type: 'order.active', occurredAt: 5, order: {} })).toBeNull();
});
