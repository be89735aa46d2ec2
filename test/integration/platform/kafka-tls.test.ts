/**
 * Kafka over TLS and SASL (issue 30, item 1, the Kafka part): a broker of this test's own with a SASL_SSL
 * listener (certificates made here with openssl, the keystore read by the JDK; client certificates required;
 * SASL PLAIN and SCRAM-SHA-256/512). The service started against it creates its world's topics, reads the
 * cluster and topic ids (its own Metadata request), produces and consumes: a sign-up is a command the processor
 * applies and answers. Each mechanism logs in; a wrong password, an untrusted certificate and a missing client
 * certificate each fail the start, naming Kafka and why, never the password.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { topicName } from '../../../topics';
import { KafkaLog } from '../../../services/platform/kafka';
import { kafkaSecurity } from '../../../services/platform/kafka-security';
import { fetchLogMetadata } from '../../../services/platform/kafka-topic-ids';
import { OPEN_BUDGETS } from '../../support/identity';
import { startSecuredKafka, type SecuredKafka } from '../../support/secured-kafka';
import { signUpThroughService, startRefused } from '../../support/service-process';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

/** Below the ephemeral range; the PLAINTEXT probe listener, the controller (+1) and the SASL_SSL one (+2). */
const KAFKA_PORT = Number(process.env.TLS_KAFKA_PORT ?? 28692);
const API_PORT = String(Number(process.env.API_PORT ?? 13100) + 66);
let kafka: SecuredKafka;
let world: World;
let secured: Record<string, string>;

beforeAll(async () => {
  kafka = startSecuredKafka(fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-tls-')), KAFKA_PORT);
  const cert = (n: string) => path.join(kafka.certs, n);
  secured = {
    KAFKA_BROKERS: kafka.broker, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: cert('ca.crt'), KAFKA_TLS_CERT_FILE: cert('client.crt'),
    KAFKA_TLS_KEY_FILE: cert('client.key'), KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: kafka.username, KAFKA_SASL_PASSWORD: kafka.password,
  };
  world = newWorld('kafkatls', { ...OPEN_BUDGETS, ...secured });
  // The world's topics are created on the secured broker, over SASL_SSL.
  await (await openRuntime(world)).close();
}, 240_000);
afterAll(async () => {
  if (world) await dropWorld(world);
  await kafka?.destroy();
}, 120_000);

test('the service over SASL_SSL (SCRAM-SHA-512, a client certificate): topics, topic ids, produce and consume', async () => {
  // A sign-up is commands appended by the API and applied by the processor, both through the secured listener.
  const { accountId, checks } = await signUpThroughService(world, API_PORT);
  expect(accountId).toMatch(/^acc_/);
  expect(checks.kafka).toBe('ok');
}, 180_000);

test.each(['plain', 'scram-sha-256'] as const)('SASL %s logs in: the topic ids are read and a record goes round', async (mechanism) => {
  const security = kafkaSecurity({ ...world.cfg, KAFKA_SASL_MECHANISM: mechanism });
  const topic = topicName(world.cfg.topicPrefix, 'accountEvents');
  const metadata = await fetchLogMetadata([kafka.broker], 'kafka-tls-test', [topic], security);
  expect(metadata.topicIds.get(topic)).toMatch(/^[0-9a-f-]{36}$/);
  const log = new KafkaLog(kafka.broker, 'kafka-tls-test', world.cfg.topicPrefix, 30_000, 100, security);
  try {
    const before = await log.endOffsets(topic);
    const [sent] = await log.send(topic, [{ key: Buffer.from(mechanism), value: Buffer.from(`over ${mechanism}`) }]);
    expect((await log.endOffsets(topic)).get(sent.partition)).toBe((before.get(sent.partition) ?? 0n) + 1n);
  } finally {
    await log.disconnect();
  }
}, 60_000);

test('a wrong password fails the start, naming Kafka and the reason, not the password', async () => {
  const refused = await startRefused(world, { KAFKA_SASL_PASSWORD: 'not-the-kafka-password' });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/Kafka at 127\.0\.0\.1:\d+ \(KAFKA_BROKERS\): SASL SCRAM-SHA-512 authentication refused: .*invalid credentials/);
  expect(refused.output).not.toContain('not-the-kafka-password');
}, 60_000);

test('an untrusted broker certificate fails the start, naming Kafka and the reason', async () => {
  const refused = await startRefused(world, { KAFKA_TLS_CA_FILE: path.join(kafka.certs, 'other.crt') });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/Kafka at 127\.0\.0\.1:\d+ \(KAFKA_BROKERS\): TLS handshake refused: .*certificate/);
}, 60_000);

test('without the client certificate the broker requires, the start fails naming Kafka', async () => {
  const refused = await startRefused(world, { KAFKA_TLS_CERT_FILE: undefined, KAFKA_TLS_KEY_FILE: undefined });
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/Kafka at 127\.0\.0\.1:\d+ \(KAFKA_BROKERS\): TLS handshake refused: .*(certificate|alert)/);
}, 60_000);
