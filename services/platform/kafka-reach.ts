/**
 * The first contact with Kafka at start-up, on a connection of its own (kafka-wire.ts): a refused TLS handshake
 * (an untrusted certificate, a host the certificate does not name) or refused SASL credentials fail the start
 * here, naming Kafka and why, instead of kafkajs retrying a connection that can never succeed and then
 * failing with its own words. Brokers merely away are left to kafkajs, which waits for them as before.
 */
import type { KafkaSecurity } from './kafka-security';
import { connectBroker } from './kafka-topic-ids';
import { KafkaRefusal } from './kafka-wire';

export async function reachKafka(brokers: string[], clientId: string, security: KafkaSecurity, timeoutMs = 10_000): Promise<void> {
  for (const broker of brokers) {
    try {
      (await connectBroker(broker, clientId, security, timeoutMs)).close();
      return;
    } catch (err) {
      if (err instanceof KafkaRefusal) throw new Error(`Kafka at ${broker} (KAFKA_BROKERS): ${err.message}`);
    }
  }
}
