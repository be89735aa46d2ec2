/**
 * The connections every role shares in one process: PostgreSQL, Redis, Kafka and the schema registry,
 * opened once, with topics ensured and schemas registered before any role starts.
 */
import { topicName, topics, partitionsOf, type TopicKey } from '../topics';
import { scaledClock } from './platform/clock';
import type { Config } from './platform/config';
import { migrate } from './platform/db/migrate';
import { createPool } from './platform/db/pool';
import { KafkaLog } from './platform/kafka';
import { fetchLogMetadata } from './platform/kafka-topic-ids';
import { reachKafka } from './platform/kafka-reach';
import { kafkaSecurity } from './platform/kafka-security';
import { retentionConfigNames, retentionProblems, retentionRefusal, type TopicRetention } from './platform/topic-retention';
import { checkNetwork, checkOrStamp, type LogIdentity } from './platform/log-identity';
import { logger } from './platform/logger';
import { createRedis, reachRedis } from './platform/redis';
import { LogCodec } from './platform/wire/codec';
import { createRegistryClient, registerTopicSchemas } from './platform/wire/registry';
import { reachRegistry, registryAccess } from './platform/wire/registry-access';
import { priceTable } from './domain/pricing';
import { chainClients, type Runtime } from './chain/clients';
import { reachDatabase } from './platform/db/reach';

export interface RuntimeOptions {
  migrate?: boolean;
  databaseUrl?: string;
  /**
   * `check` (default): stamp an empty database with the log it is built from, refuse one built from
   * another log or network (services/platform/log-identity.ts). `skip`: `ops restore`, which stamps the
   * database it builds itself.
   */
  logIdentity?: 'check' | 'skip';
}

export async function createRuntime(cfg: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  logger.level = cfg.LOG_LEVEL;
  // The certificate files are read before anything is opened: a missing one refuses the start with nothing to close.
  const security = kafkaSecurity(cfg);
  const databaseUrl = options.databaseUrl ?? cfg.DATABASE_URL;
  // TLS (sslmode, sslrootcert, sslcert, sslkey in DATABASE_URL) and credentials are tried once, named on failure.
  await reachDatabase(databaseUrl);
  if (options.migrate ?? true) await migrate(databaseUrl);
  const pool = createPool(databaseUrl, cfg.DATABASE_POOL_MAX, cfg.DATABASE_POOL_MIN);
  const checkIdentity = (options.logIdentity ?? 'check') === 'check';
  if (checkIdentity) await checkNetwork(pool, cfg.NETWORK, databaseUrl).catch(async (err) => {
    await pool.end();
    throw err;
  });
  const redis = createRedis(cfg.REDIS_URL, { tlsCaFile: cfg.REDIS_TLS_CA_FILE });
  await reachRedis(redis, cfg.REDIS_URL).catch(async (err) => {
    redis.disconnect();
    await pool.end();
    throw err;
  });
  const log = new KafkaLog(cfg.KAFKA_BROKERS, cfg.KAFKA_CLIENT_ID, cfg.topicPrefix, cfg.KAFKA_SESSION_TIMEOUT_MS, cfg.KAFKA_FETCH_MAX_WAIT_MS, security);
  try {
    await reachKafka(brokerList(cfg), cfg.KAFKA_CLIENT_ID, security);
    await log.ensureTopics(
      (Object.keys(topics) as TopicKey[]).map((key) => ({
        name: topicName(cfg.topicPrefix, key),
        partitions: partitionsOf(topics[key], cfg.TOPIC_PARTITIONS),
        decl: topics[key],
      })),
    );
    await checkRetention(log, cfg.topicPrefix);
    if (checkIdentity) await checkOrStamp(pool, await currentLogIdentity(cfg), databaseUrl);
  } catch (err) {
    // A refused start closes what it opened, so a caller (ops, tests) that goes on does not leak.
    await Promise.allSettled([log.disconnect(), pool.end()]);
    redis.disconnect();
    throw err;
  }
  const access = registryAccess(cfg);
  const registry = createRegistryClient(access);
  let codec: LogCodec;
  try {
    await reachRegistry(access);
    codec = new LogCodec(registry, await registerTopicSchemas(registry, cfg.topicPrefix), cfg.NETWORK);
  } catch (err) {
    await Promise.allSettled([log.disconnect(), pool.end()]);
    redis.disconnect();
    throw err;
  }
  return {
    cfg,
    clock: scaledClock(cfg.CLOCK_SCALE, cfg.CLOCK_ORIGIN_MS),
    pool,
    redis,
    log,
    registry,
    codec,
    prices: priceTable(cfg.NETWORK, cfg.ORDER_PRICES, cfg.ACTIVATION_FEE_SUN),
    chain: chainClients(cfg, pool),
    close: async () => {
      await log.disconnect();
      redis.disconnect();
      await pool.end();
    },
  };
}

const brokerList = (cfg: Config) => cfg.KAFKA_BROKERS.split(',').map((b) => b.trim());

/** The network, cluster id and declared topics' ids this process's configuration points at. */
export async function currentLogIdentity(cfg: Config): Promise<LogIdentity> {
  const keys = Object.keys(topics) as TopicKey[];
  const names = keys.map((key) => topicName(cfg.topicPrefix, key));
  const brokers = brokerList(cfg);
  const security = kafkaSecurity(cfg);
  let metadata = await fetchLogMetadata(brokers, cfg.KAFKA_CLIENT_ID, names, security);
  // A topic created a moment ago may not have reached every broker's metadata cache yet.
  for (let i = 0; i < 25 && names.some((n) => !metadata.topicIds.has(n)); i++) {
    await new Promise((r) => setTimeout(r, 200));
    metadata = await fetchLogMetadata(brokers, cfg.KAFKA_CLIENT_ID, names, security);
  }
  const entries = keys.map((key, i) => {
    const id = metadata.topicIds.get(names[i]);
    if (!id) throw new Error(`topic ${names[i]} has no id in the cluster's metadata`);
    return [key, { topic: names[i], id }] as const;
  });
  return { network: cfg.NETWORK, clusterId: metadata.clusterId, topics: Object.fromEntries(entries) };
}

/** Refuses a topic whose retention would lose records its declaration keeps (topic-retention.ts). */
async function checkRetention(log: KafkaLog, prefix: string): Promise<void> {
  const keys = Object.keys(topics) as TopicKey[];
  const configs = await log.topicConfigs(keys.map((k) => topicName(prefix, k)), retentionConfigNames);
  for (const key of keys) {
    const name = topicName(prefix, key);
    const problems = retentionProblems(topics[key], configs.get(name) as unknown as TopicRetention);
    if (problems.length > 0) throw new Error(retentionRefusal(name, problems));
  }
}
export type { Runtime } from './chain/clients';
