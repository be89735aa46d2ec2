/**
 * The connections and shared values of one process, opened once by the composition root
 * (services/runtime.ts) and handed to every role and route of that process.
 */
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { PriceTable } from '../domain/pricing';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Pool } from './db/pool';
import type { KafkaLog } from './kafka';
import type { Redis } from './redis';
import type { LogCodec } from './wire/codec';

export interface Connections {
  cfg: Config;
  clock: Clock;
  pool: Pool;
  redis: Redis;
  log: KafkaLog;
  registry: SchemaRegistry;
  codec: LogCodec;
  /** The price table in force, parsed once from the config (not per request). */
  prices: PriceTable;
  close(): Promise<void>;
}
