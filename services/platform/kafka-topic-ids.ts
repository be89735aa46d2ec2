/**
 * Cluster id and topic ids, straight from a broker. kafkajs 2.2.4 speaks Metadata up to v6, which carries
 * the cluster id but not the topic ids (added in v10, KIP-516); a recreated topic keeps its name and only
 * its id tells it apart. So this module sends one Metadata v12 request (Kafka 3.1+) over a plain socket
 * and decodes just what it needs. Plaintext brokers only, like the KafkaLog client it sits beside.
 */
import net from 'node:net';

export interface LogMetadata {
  clusterId: string;
  /** Full topic name → topic id (UUID text); topics the broker does not know are absent. */
  topicIds: Map<string, string>;
}

const METADATA_API_KEY = 3;
const METADATA_VERSION = 12;

class Writer {
  private readonly parts: Buffer[] = [];
  int8(v: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    return this.push(b);
  }
  int16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return this.push(b);
  }
  int32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return this.push(b);
  }
  uvarint(v: number): this {
    const bytes: number[] = [];
    do {
      let byte = v & 0x7f;
      v >>>= 7;
      if (v !== 0) byte |= 0x80;
      bytes.push(byte);
    } while (v !== 0);
    return this.push(Buffer.from(bytes));
  }
  /** Classic (non-compact) nullable string: the request header's client id. */
  string16(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.int16(b.length).push(b);
  }
  compactString(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.uvarint(b.length + 1).push(b);
  }
  bytes(b: Buffer): this {
    return this.push(b);
  }
  build(): Buffer {
    return Buffer.concat(this.parts);
  }
  private push(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
}

class Reader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  int8(): number {
    return this.buf.readInt8(this.take(1));
  }
  int16(): number {
    return this.buf.readInt16BE(this.take(2));
  }
  int32(): number {
    return this.buf.readInt32BE(this.take(4));
  }
  uvarint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.buf.readUInt8(this.take(1));
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  }
  compactNullableString(): string | null {
    const n = this.uvarint();
    if (n === 0) return null;
    const start = this.take(n - 1);
    return this.buf.toString('utf8', start, start + n - 1);
  }
  uuid(): string {
    const start = this.take(16);
    const hex = this.buf.toString('hex', start, start + 16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  compactArray<T>(item: () => T): T[] {
    const n = this.uvarint();
    const out: T[] = [];
    for (let i = 0; i < n - 1; i++) out.push(item());
    return out;
  }
  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.take(this.uvarint());
    }
  }
  private take(n: number): number {
    if (this.at + n > this.buf.length) throw new Error('Kafka metadata response ended early');
    const at = this.at;
    this.at += n;
    return at;
  }
}

/** The request frame (exported for the unit test of the encoding). */
export function encodeMetadataRequest(correlationId: number, clientId: string, topicNames: string[]): Buffer {
  const w = new Writer()
    // Request header v2: api key, version, correlation id, client id, tagged fields.
    .int16(METADATA_API_KEY).int16(METADATA_VERSION).int32(correlationId).string16(clientId).uvarint(0)
    .uvarint(topicNames.length + 1);
  for (const name of topicNames) w.bytes(Buffer.alloc(16)).compactString(name).uvarint(0);
  // allow_auto_topic_creation = false, include_topic_authorized_operations = false, tagged fields.
  const body = w.int8(0).int8(0).uvarint(0).build();
  const frame = Buffer.alloc(4);
  frame.writeInt32BE(body.length);
  return Buffer.concat([frame, body]);
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

function requestOnce(broker: string, clientId: string, topicNames: string[], timeoutMs: number): Promise<LogMetadata> {
  const [host, port] = [broker.slice(0, broker.lastIndexOf(':')), Number(broker.slice(broker.lastIndexOf(':') + 1))];
  const correlationId = 1;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = Buffer.alloc(0);
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`Kafka broker ${broker} did not answer a Metadata v${METADATA_VERSION} request within ${timeoutMs} ms`)));
    socket.on('error', fail);
    socket.on('close', () => reject(new Error(`Kafka broker ${broker} closed the connection (does it speak Metadata v${METADATA_VERSION}, Kafka 3.1+?)`)));
    socket.on('connect', () => socket.write(encodeMetadataRequest(correlationId, clientId, topicNames)));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < 4 + received.readInt32BE(0)) return;
      try {
        const metadata = decodeMetadataResponse(received.subarray(4, 4 + received.readInt32BE(0)), correlationId);
        socket.end();
        resolve(metadata);
      } catch (err) {
        fail(err as Error);
      }
    });
  });
}

/** Asks the brokers in turn (any broker knows the whole cluster's metadata). */
export async function fetchLogMetadata(brokers: string[], clientId: string, topicNames: string[], timeoutMs = 10_000): Promise<LogMetadata> {
  let last: unknown;
  for (const broker of brokers) {
    try {
      return await requestOnce(broker, clientId, topicNames, timeoutMs);
    } catch (err) {
      last = err;
    }
  }
  throw last instanceof Error ? last : new Error('no Kafka broker answered');
}
