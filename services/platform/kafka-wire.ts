/**
 * The Kafka protocol on a socket of our own, for the few requests kafkajs cannot send (kafka-topic-ids.ts):
 * the primitive encodings, request frames, and one connection (plain or TLS; SASL runs over it, kafka-sasl.ts)
 * that sends one request at a time. A handshake or authentication the broker refuses is a
 * KafkaRefusal: the configuration is wrong, and retrying would not help.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { KafkaSecurity } from './kafka-security';

export class Writer {
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
  /** Classic (non-compact) string: the request header's client id, a SASL mechanism. */
  string16(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.int16(b.length).push(b);
  }
  compactString(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.uvarint(b.length + 1).push(b);
  }
  /** Classic bytes: int32 length, then the bytes. */
  bytes32(b: Buffer): this {
    return this.int32(b.length).push(b);
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

export class Reader {
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
  int64(): bigint {
    return this.buf.readBigInt64BE(this.take(8));
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
  nullableString16(): string | null {
    const n = this.int16();
    if (n < 0) return null;
    const start = this.take(n);
    return this.buf.toString('utf8', start, start + n);
  }
  bytes32(): Buffer {
    const n = this.int32();
    if (n < 0) return Buffer.alloc(0);
    const start = this.take(n);
    return Buffer.from(this.buf.subarray(start, start + n));
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
  array<T>(item: () => T): T[] {
    const n = this.int32();
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(item());
    return out;
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
    if (this.at + n > this.buf.length) throw new Error('Kafka response ended early');
    const at = this.at;
    this.at += n;
    return at;
  }
}

/**
 * A request frame: size, header (v2 with tagged fields for a flexible version, else v1), body. The response
 * header is v1 (correlation id, tagged fields) for a flexible request, v0 (correlation id) otherwise.
 */
export function requestFrame(apiKey: number, version: number, correlationId: number, clientId: string, body: Buffer, flexible: boolean): Buffer {
  const header = new Writer().int16(apiKey).int16(version).int32(correlationId).string16(clientId);
  if (flexible) header.uvarint(0);
  const payload = Buffer.concat([header.build(), body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}

/** The broker refused the TLS handshake or the credentials: the configuration is wrong. */
export class KafkaRefusal extends Error {}

const TLS_REFUSAL = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME|ALTNAME/;

/**
 * A TLS error as a refusal. Under TLS 1.3 a broker that refuses the client's certificate (or its absence)
 * says so after the handshake, with an alert that fails the first request, so this applies to every error of
 * a TLS connection, not only the handshake's.
 */
function asRefusal(err: Error & { code?: string }): Error {
  return TLS_REFUSAL.test(err.code ?? '') || /certificate|handshake|ssl|tls/i.test(err.message) ? new KafkaRefusal(`TLS handshake refused: ${err.message}`) : err;
}

/** One connection to one broker; one request at a time. */
export class BrokerConnection {
  private received = Buffer.alloc(0);
  private waiting: { resolve: (payload: Buffer) => void; reject: (err: Error) => void } | undefined;
  private failure: Error | undefined;
  private correlation = 0;

  private constructor(private readonly socket: net.Socket, readonly broker: string, readonly clientId: string, secured: boolean) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      if (this.received.length < 4 || this.received.length < 4 + this.received.readInt32BE(0)) return;
      const payload = this.received.subarray(4, 4 + this.received.readInt32BE(0));
      this.received = this.received.subarray(4 + payload.length);
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.resolve(payload);
    });
    const fail = (err: Error) => {
      this.failure ??= secured ? asRefusal(err) : err;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.reject(this.failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error(`Kafka broker ${broker} closed the connection`)));
  }

  /** Connects (TLS when configured). */
  static async open(broker: string, clientId: string, security: KafkaSecurity, timeoutMs: number): Promise<BrokerConnection> {
    const host = broker.slice(0, broker.lastIndexOf(':'));
    const port = Number(broker.slice(broker.lastIndexOf(':') + 1));
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s: net.Socket = security.tls
        ? tls.connect({ host, port, ...security.tls, ...(net.isIP(host) ? {} : { servername: host }) })
        : net.connect({ host, port });
      const timer = setTimeout(() => (s.destroy(), reject(new Error(`Kafka broker ${broker} did not accept a connection within ${timeoutMs} ms`))), timeoutMs);
      s.once(security.tls ? 'secureConnect' : 'connect', () => (clearTimeout(timer), resolve(s)));
      s.once('error', (err: Error & { code?: string }) => {
        clearTimeout(timer);
        s.destroy();
        reject(security.tls ? asRefusal(err) : err);
      });
    });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`Kafka broker ${broker} did not answer within ${timeoutMs} ms`)));
    return new BrokerConnection(socket, broker, clientId, !!security.tls);
  }

  /** Sends one request; answers its response after the header (whose correlation id is checked). */
  async request(apiKey: number, version: number, body: Buffer, flexible: boolean): Promise<Reader> {
    const correlationId = ++this.correlation;
    const payload = await this.roundTrip(requestFrame(apiKey, version, correlationId, this.clientId, body, flexible));
    const r = new Reader(payload);
    if (r.int32() !== correlationId) throw new Error('Kafka response for another request');
    if (flexible) r.skipTaggedFields();
    return r;
  }

  /** Sends a whole frame; answers the response's payload (after the size, from the correlation id on). */
  roundTrip(frame: Buffer): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(frame);
    });
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}
