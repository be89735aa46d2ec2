/**
 * A Kafka broker of one test with a SASL_SSL listener (infra/kafka/ctl.sh with its own STACK_DIR, the jars
 * from the stack's cache, as privateKafka's): TLS with a server certificate from makeCertificates (a PKCS12 keystore made with
 * openssl, read by the JDK), client certificates required (signed by the same CA), and SASL PLAIN,
 * SCRAM-SHA-256 and SCRAM-SHA-512 for one user (the SCRAM credentials stored by the storage format,
 * --add-scram). Its PLAINTEXT listener (the readiness probe's) is on `port`, the secured one on `port + 2`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeCertificates, makeClientCertificate } from './tls-certificates';
import { portOutsideEphemeralRange } from './private-infra';

const ROOT = path.resolve(__dirname, '../..');

export interface SecuredKafka {
  /** host:port of the SASL_SSL listener. */
  broker: string;
  username: string;
  password: string;
  /** The directory of ca.crt, other.crt (an unrelated CA), client.crt, client.key. */
  certs: string;
  destroy(): Promise<void>;
}

export function startSecuredKafka(dir: string, port: number): SecuredKafka {
  const plainPort = portOutsideEphemeralRange('TLS_KAFKA_PORT', port);
  const controllerPort = portOutsideEphemeralRange('TLS_KAFKA_PORT + 1', port + 1);
  const securedPort = portOutsideEphemeralRange('TLS_KAFKA_PORT + 2', port + 2);
  const certs = path.join(dir, 'certs');
  fs.mkdirSync(certs, { recursive: true });
  makeCertificates(certs);
  makeClientCertificate(certs);
  const storePassword = 'keystore-secret';
  execFileSync('openssl', ['pkcs12', '-export', '-in', path.join(certs, 'server.crt'), '-inkey', path.join(certs, 'server.key'),
    '-certfile', path.join(certs, 'ca.crt'), '-name', 'broker', '-out', path.join(certs, 'server.p12'), '-passout', `pass:${storePassword}`], { stdio: 'ignore' });
  const username = 'energy';
  const password = 'kafka-sasl-secret';
  const properties = path.join(dir, 'secured.properties');
  fs.writeFileSync(properties, [
    `listeners=PLAINTEXT://127.0.0.1:${plainPort},CONTROLLER://127.0.0.1:${controllerPort},SASL_SSL://127.0.0.1:${securedPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${plainPort},SASL_SSL://127.0.0.1:${securedPort}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL',
    'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    `listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${username}="${password}";`,
    'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'ssl.keystore.type=PKCS12',
    `ssl.keystore.location=${path.join(certs, 'server.p12')}`,
    `ssl.keystore.password=${storePassword}`,
    `ssl.key.password=${storePassword}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${path.join(certs, 'ca.crt')}`,
    // For a SASL_SSL listener only the listener-prefixed setting applies (KIP-684).
    'listener.name.sasl_ssl.ssl.client.auth=required',
    '',
  ].join('\n'));
  const env = {
    ...process.env,
    KAFKA_BROKERS: `127.0.0.1:${plainPort}`, KAFKA_CONTROLLER_PORT: String(controllerPort), STACK_DIR: path.join(dir, 'stack'),
    ...(process.env.OUTAGE_STACK_CACHE_DIR ? { STACK_CACHE_DIR: process.env.OUTAGE_STACK_CACHE_DIR } : {}),
    KAFKA_HEAP_OPTS: '-Xms64m -Xmx256m', KAFKA_START_TIMEOUT: '120', KAFKA_EXTRA_PROPERTIES: properties,
    KAFKA_FORMAT_ARGS: ['SCRAM-SHA-256', 'SCRAM-SHA-512'].map((m) => `--add-scram ${m}=[name=${username},password=${password}]`).join(' '),
  };
  const ctl = (cmd: string) => execFileSync('bash', [path.join(ROOT, 'infra/kafka/ctl.sh'), cmd], { env, timeout: 150_000, killSignal: 'SIGKILL', stdio: 'pipe' });
  ctl('start');
  return {
    broker: `127.0.0.1:${securedPort}`, username, password, certs,
    destroy: async () => {
      ctl('reset');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
