/**
 * SASL on a connection of our own (kafka-wire.ts): SaslHandshake v1 names the mechanism, SaslAuthenticate v1
 * carries its exchange. PLAIN sends the credentials in one message (over TLS, as any PLAIN deployment must);
 * SCRAM-SHA-256/512 is RFC 5802's exchange (the password never crosses the wire, and the server proves it
 * knows the credentials too). A refusal is a KafkaRefusal with the broker's own reason; the password is never
 * in a message.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KafkaSecurity } from './kafka-security';
import { KafkaRefusal, Writer, type BrokerConnection } from './kafka-wire';

const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;
/** Kafka's error codes met here. */
const UNSUPPORTED_SASL_MECHANISM = 33;

type Sasl = NonNullable<KafkaSecurity['sasl']>;

export async function authenticate(connection: BrokerConnection, sasl: Sasl): Promise<void> {
  const mechanism = sasl.mechanism.toUpperCase();
  const handshake = await connection.request(SASL_HANDSHAKE, 1, new Writer().string16(mechanism).build(), false);
  const error = handshake.int16();
  const enabled = handshake.array(() => handshake.nullableString16() ?? '');
  if (error === UNSUPPORTED_SASL_MECHANISM) throw new KafkaRefusal(`SASL mechanism ${mechanism} not enabled on the broker (it offers ${enabled.join(', ') || 'none'})`);
  if (error !== 0) throw new KafkaRefusal(`SASL handshake refused (error code ${error})`);
  if (sasl.mechanism === 'plain') {
    await step(connection, mechanism, Buffer.from(`\u0000${sasl.username}\u0000${sasl.password}`, 'utf8'));
    return;
  }
  await scram(connection, mechanism, sasl.mechanism === 'scram-sha-256' ? 'sha256' : 'sha512', sasl.username, sasl.password);
}

/** One SaslAuthenticate round: our message, the server's answer. */
async function step(connection: BrokerConnection, mechanism: string, message: Buffer): Promise<Buffer> {
  const r = await connection.request(SASL_AUTHENTICATE, 1, new Writer().bytes32(message).build(), false);
  const error = r.int16();
  const errorMessage = r.nullableString16();
  const answer = r.bytes32();
  if (error !== 0) throw new KafkaRefusal(`SASL ${mechanism} authentication refused: ${errorMessage ?? `error code ${error}`}`);
  return answer;
}

/** RFC 5802's saslname: `=` and `,` escaped. */
const saslName = (name: string) => name.replace(/=/g, '=3D').replace(/,/g, '=2C');

async function scram(connection: BrokerConnection, mechanism: string, hash: 'sha256' | 'sha512', username: string, password: string): Promise<void> {
  const clientNonce = randomBytes(24).toString('base64');
  const clientFirstBare = `n=${saslName(username)},r=${clientNonce}`;
  const serverFirst = (await step(connection, mechanism, Buffer.from(`n,,${clientFirstBare}`, 'utf8'))).toString('utf8');
  const fields = new Map(serverFirst.split(',').map((f) => [f.slice(0, 1), f.slice(2)] as const));
  if (fields.has('e')) throw new KafkaRefusal(`SASL ${mechanism} authentication refused: ${fields.get('e')}`);
  const nonce = fields.get('r') ?? '';
  const salt = Buffer.from(fields.get('s') ?? '', 'base64');
  const iterations = Number(fields.get('i'));
  if (!nonce.startsWith(clientNonce) || salt.length === 0 || !Number.isInteger(iterations) || iterations < 1) {
    throw new KafkaRefusal(`SASL ${mechanism}: the broker's first message is not a SCRAM challenge`);
  }
  const hmac = (key: Buffer, text: string) => createHmac(hash, key).update(text, 'utf8').digest();
  const salted = pbkdf2Sync(password, salt, iterations, hash === 'sha256' ? 32 : 64, hash);
  const clientKey = hmac(salted, 'Client Key');
  const storedKey = createHash(hash).update(clientKey).digest();
  const withoutProof = `c=${Buffer.from('n,,').toString('base64')},r=${nonce}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const signature = hmac(storedKey, authMessage);
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]));
  const serverFinal = (await step(connection, mechanism, Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8'))).toString('utf8');
  if (serverFinal.startsWith('e=')) throw new KafkaRefusal(`SASL ${mechanism} authentication refused: ${serverFinal.slice(2)}`);
  const expected = hmac(hmac(salted, 'Server Key'), authMessage);
  const told = Buffer.from(serverFinal.startsWith('v=') ? serverFinal.slice(2) : '', 'base64');
  if (told.length !== expected.length || !timingSafeEqual(told, expected)) {
    throw new KafkaRefusal(`SASL ${mechanism}: the broker did not prove it knows the credentials`);
  }
}
