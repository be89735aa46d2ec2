/**
 * Cluster id and topic ids, straight from a broker. kafkajs 2.2.4 speaks Metadata up to v6, which carries
 * the cluster id but not the topic ids (added in v10, KIP-516); a recreated topic keeps its name and only
 * its id tells it apart. So this module sends one Metadata v12 request (Kafka 3.1+) on a socket of its own,
 * with TLS and SASL as KafkaLog's connections have them (kafka-wire.ts, kafka-sasl.ts), and decodes just what
 * it needs.
 */
import type { KafkaSecurity } from './kafka-security';
import { authenticate } from './kafka-sasl';
import { BrokerConnection, KafkaRefusal, Reader, requestFrame, Writer } from './kafka-wire';

export interface LogMetadata {
  clusterId: string;
  /** Full topic name → topic id (UUID text); topics the broker does not know are absent. */
  topicIds: Map<string, string>;
}

const METADATA_API_KEY = 3;
const METADATA_VERSION = 12;

/** The request frame (exported for the unit test of the encoding). */
export function encodeMetadataRequest(correlationId: number, clientId: string, topicNames: string[]): Buffer {
  const w = new Writer().uvarint(topicNames.length + 1);
  for (const name of topicNames) w.bytes(Buffer.alloc(16)).compactString(name).uvarint(0);
  // allow_auto_topic_creation = false, include_topic_authorized_operations = false, tagged fields.
  return requestFrame(METADATA_API_KEY, METADATA_VERSION, correlationId, clientId, w.int8(0).int8(0).uvarint(0).build(), true);
}

/** Decodes a Metadata v12 response body (after the 4-byte size). */
export function decodeMetadataResponse(payload: Buffer, correlationId: number): LogMetadata {
  const r = new Reader(payload);
  if (r.int32() !== correlationId) throw new Error('Kafka metadata response for another request');
  r.skipTaggedFields();
  r.int32(); // throttle_time_ms
  r.compactArray(() => {
    r.int32();
    r.compactNullableString();
    r.int32();
    r.compactNullableString();
    r.skipTaggedFields();
  });
  const clusterId = r.compactNullableString();
  r.int32(); // controller_id
  const topicIds = new Map<string, string>();
  r.compactArray(() => {
    const error = r.int16();
    const name = r.compactNullableString();
    const id = r.uuid();
    r.int8(); // is_internal
    r.compactArray(() => {
      r.int16();
      r.int32();
      r.int32();
      r.int32();
      r.compactArray(() => r.int32());
      r.compactArray(() => r.int32());
      r.compactArray(() => r.int32());
      r.skipTaggedFields();
    });
    r.int32(); // topic_authorized_operations
    r.skipTaggedFields();
    if (error === 0 && name) topicIds.set(name, id);
  });
  if (!clusterId) throw new Error('Kafka broker did not report a cluster id');
  return { clusterId, topicIds };
}

/** A connection to `broker`, TLS and SASL done as configured. */
export async function connectBroker(broker: string, clientId: string, security: KafkaSecurity, timeoutMs: number): Promise<BrokerConnection> {
  const connection = await BrokerConnection.open(broker, clientId, security, timeoutMs);
  try {
    if (security.sasl) await authenticate(connection, security.sasl);
    return connection;
  } catch (err) {
    connection.close();
    throw err;
  }
}

async function requestOnce(broker: string, clientId: string, topicNames: string[], security: KafkaSecurity, timeoutMs: number): Promise<LogMetadata> {
  const connection = await connectBroker(broker, clientId, security, timeoutMs);
  try {
    const correlationId = 1;
    const payload = await connection.roundTrip(encodeMetadataRequest(correlationId, clientId, topicNames)).catch((err: Error) => {
      throw new Error(`Kafka broker ${broker} did not answer a Metadata v${METADATA_VERSION} request (does it speak it, Kafka 3.1+?): ${err.message}`);
    });
    return decodeMetadataResponse(payload, correlationId);
  } finally {
    connection.close();
  }
}

/** Asks the brokers in turn (any broker knows the whole cluster's metadata); a refused handshake or login stops at once. */
export async function fetchLogMetadata(brokers: string[], clientId: string, topicNames: string[], security: KafkaSecurity = {}, timeoutMs = 10_000): Promise<LogMetadata> {
  let last: unknown;
  for (const broker of brokers) {
    try {
      return await requestOnce(broker, clientId, topicNames, security, timeoutMs);
    } catch (err) {
      if (err instanceof KafkaRefusal) throw err;
      last = err;
    }
  }
  throw last instanceof Error ? last : new Error('no Kafka broker answered');
}
