/**
 * The connections every role shares in one process: PostgreSQL, Redis, Kafka and the schema registry,
 * opened once, with topics ensured and schemas registered before any role starts.
 */
import { topicName, topics, partitionsOf, type TopicKey } from '../../topics';
import { scaledClock, type Clock } from './clock';
import type { Config } from './config';
import { migrate } from './db/migrate';
import { createPool, type Pool } from './db/pool';
import { KafkaLog } from './kafka';
import { logger } from './logger';
import { createRedis, type Redis } from './redis';
import { LogCodec } from './wire/codec';
import { createRegistryClient, registerTopicSchemas } from './wire/registry';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { priceTable, type PriceTable } from '../domain/pricing';
import { ChainReader } from '../chain/reads';
import { ChainWriter } from '../chain/writes';

/** One chain reader and one writer per process, built on first use and shared by every role and route. */
export interface ChainClients {
  readonly reader: ChainReader;
  readonly writer: ChainWriter;
}

function lazyChainClients(cfg: Config): ChainClients {
  let reader: ChainReader | undefined;
  let writer: ChainWriter | undefined;
  return {
    get reader() {
      return (reader ??= ChainReader.fromConfig(cfg));
    },
    get writer() {
      return (writer ??= ChainWriter.fromConfig(cfg));
    },
  };
}

export interface Runtime {
  cfg: Config;
  clock: Clock;
  pool: Pool;
  redis: Redis;
  log: KafkaLog;
  registry: SchemaRegistry;
  codec: LogCodec;
  /** The price table in force, parsed once from the config (not per request). */
  prices: PriceTable;
  chain: ChainClients;
  close(): Promise<void>;
}

export async function createRuntime(cfg: Config, options: { migrate?: boolean; databaseUrl?: string } = {}): Promise<Runtime> {
  logger.level = cfg.LOG_LEVEL;
  const databaseUrl = options.databaseUrl ?? cfg.DATABASE_URL;
  if (options.migrate ?? true) await migrate(databaseUrl);
  const pool = createPool(databaseUrl, cfg.DATABASE_POOL_MAX);
  const redis = createRedis(cfg.REDIS_URL);
  const log = new KafkaLog(cfg.KAFKA_BROKERS, cfg.KAFKA_CLIENT_ID, cfg.topicPrefix, cfg.KAFKA_SESSION_TIMEOUT_MS, cfg.KAFKA_FETCH_MAX_WAIT_MS);
  await log.ensureTopics(
    (Object.keys(topics) as TopicKey[]).map((key) => ({
      name: topicName(cfg.topicPrefix, key),
      partitions: partitionsOf(topics[key], cfg.TOPIC_PARTITIONS),
      decl: topics[key],
    })),
  );
  const registry = createRegistryClient(cfg.SCHEMA_REGISTRY_URL);
  const codec = new LogCodec(registry, await registerTopicSchemas(registry, cfg.topicPrefix), cfg.NETWORK);
  return {
    cfg,
    clock: scaledClock(cfg.CLOCK_SCALE, cfg.CLOCK_ORIGIN_MS),
    pool,
    redis,
    log,
    registry,
    codec,
    prices: priceTable(cfg.NETWORK, cfg.ORDER_PRICES, cfg.ACTIVATION_FEE_SUN),
    chain: lazyChainClients(cfg),
    close: async () => {
      await log.disconnect();
      redis.disconnect();
      await pool.end();
    },
  };
}
