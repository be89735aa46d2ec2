#!/usr/bin/env node
/**
 * An outside consumer of <network>.order-events (contract.md section 10), written only against the
 * contract: plain kafkajs and the Confluent schema-registry client, nothing from the service's code.
 * It prints a live per-account tally: orders seen, delivered energy and SUN spent, using the counting
 * rules of GET /v1/account/stats (spec section 2, AccountStats).
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 SCHEMA_REGISTRY_URL=http://127.0.0.1:8081 ORDER_EVENTS_TOPIC=nile.order-events \
 *     node examples/order-events-tally.mjs            # follows the topic, one line per change
 *   ... node examples/order-events-tally.mjs --until-end   # reads to the current end, prints the tally as JSON, exits
 *
 * Each record's value carries the whole order after the transition, so a consumer keeps the latest
 * order per id and derives its totals from that; duplicates arrive only with the same event_id.
 */
import { randomBytes } from 'node:crypto';
import kafkajs from 'kafkajs';
import registryClient from '@kafkajs/confluent-schema-registry';

const { Kafka, logLevel } = kafkajs;
const { SchemaRegistry } = registryClient;

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const topic = process.env.ORDER_EVENTS_TOPIC ?? 'nile.order-events';
const untilEnd = process.argv.includes('--until-end');

const registry = new SchemaRegistry({ host: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081' });
const kafka = new Kafka({ clientId: 'order-events-tally', brokers, logLevel: logLevel.ERROR });

/** Energy orders that reached the chain count their delivered energy; failed and refunded ones none. */
const onChain = new Set(['delegated', 'confirmed', 'active', 'expired', 'reclaimed']);
const latest = new Map(); // order id -> order (the newest transition seen)
const seen = new Set(); // event ids already counted
let decoded = 0;

function tally() {
  const accounts = {};
  for (const order of latest.values()) {
    const t = (accounts[order.account_id] ??= { orders: 0, energy: 0, spent_sun: 0 });
    t.orders += 1;
    if (order.resource === 'energy' && onChain.has(order.status)) t.energy += Number(order.delivered_amount ?? order.amount ?? 0);
    t.spent_sun += Number(order.total_amount_sun) - Number(order.refunded_amount_sun);
  }
  return accounts;
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]));
  await admin.disconnect();
  const pending = new Set([...ends].filter(([, high]) => high > 0n).map(([p]) => p));

  const groupId = `order-events-tally-${randomBytes(4).toString('hex')}`;
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let finish;
  const done = new Promise((resolve) => (finish = resolve));
  if (untilEnd && pending.size === 0) finish();

  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const event = await registry.decode(message.value); // the registry alone: magic byte, schema id, Avro
      const key = await registry.decode(message.key);
      decoded += 1;
      if (key.account_id !== event.account_id) throw new Error(`record key ${key.account_id} does not match ${event.account_id}`);
      if (!seen.has(event.event_id)) {
        seen.add(event.event_id);
        latest.set(event.order.id, event.order);
        if (!untilEnd) {
          const t = tally()[event.account_id];
          console.log(`${new Date(Number(event.occurred_at)).toISOString()} ${event.account_id} ${event.type.padEnd(16)} orders=${t.orders} energy=${t.energy} spent_sun=${t.spent_sun}`);
        }
      }
      if (untilEnd && BigInt(message.offset) + 1n >= (ends.get(partition) ?? 0n)) {
        pending.delete(partition);
        if (pending.size === 0) finish();
      }
    },
  });

  if (!untilEnd) return;
  await done;
  await consumer.disconnect();
  // A throwaway group: remove it so repeated runs leave nothing behind.
  const cleanup = kafka.admin();
  await cleanup.connect();
  await cleanup.deleteGroups([groupId]).catch(() => undefined);
  await cleanup.disconnect();
  console.log(JSON.stringify({ records: decoded, events: seen.size, accounts: tally() }));
}

main().catch((err) => {
  console.error(`order-events-tally: ${err.message}`);
  process.exit(1);
});
