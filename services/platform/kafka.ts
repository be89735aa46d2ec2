/**
 * The one module that talks to the Kafka client. Everything else sees plain records, batches and offsets
 * as bigint, so the client library can be swapped for another if one measures better.
 */
import {
  ConfigResourceTypes, Kafka, logLevel, Partitioners, type Admin, type Consumer, type IHeaders, type KafkaConfig, type Producer, type SASLOptions,
} from 'kafkajs';
import { logger } from './logger';
import { markProgress } from './liveness';
import type { KafkaSecurity } from './kafka-security';
import type { TopicDeclaration } from '../../topics';

export interface OutgoingRecord {
  key: Buffer;
  value: Buffer;
  headers?: Record<string, string>;
}

export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, string>;
  timestamp: number;
}

export interface PartitionBatch {
  topic: string;
  partition: number;
  records: ConsumedRecord[];
  highWatermark: bigint;
}

/** What a batch handler may do with its partition's position. */
export interface BatchControl {
  /** Marks records up to and including `offset` as handled. */
  resolve(offset: bigint): void;
  /** Moves the partition's position (the stored offset wins over the client's). */
  seek(offset: bigint): void;
  heartbeat(): Promise<void>;
  /** False once the consumer stops or the partition was taken away mid-batch. */
  stillOwned(): boolean;
}

export interface BatchConsumerOptions {
  groupId: string;
  topics: string[];
  handler: (batch: PartitionBatch, control: BatchControl) => Promise<void>;
  /** How many partitions this process handles at once. */
  partitionsConcurrently?: number;
  fromBeginning?: boolean;
  /** Marks the group's progress at every fetch (liveness.ts), under this name; unset: not watched (a scan). */
  liveness?: string;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

const levelToPino: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** Longest a starting consumer waits for its first group join before start-up goes on anyway. */
const JOIN_WAIT_MS = 30_000;
/** Pause before a new group member replaces one that crashed for good (and between attempts while it cannot connect). */
const RESTART_AFTER_MS = 1_000;

/**
 * kafkajs 2.2.4 (its last release) schedules its pending-request check at `throttledUntil - Date.now()`
 * after every answer, and `throttledUntil` is -1 until a broker throttles: a timer of minus the epoch, which
 * Node 24 reports as `TimeoutNegativeWarning: -17... is a negative number` and runs after 1 ms, only to
 * schedule itself again: every connection polled its empty queue every millisecond for good. The same
 * method, with the delay clamped at 0 and no timer while nothing waits and no throttle is in force (a
 * request queued later schedules its own check). Replaced only while kafkajs still has the unclamped line.
 */
interface KafkaRequestQueue {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}
/** kafkajs' CHECK_PENDING_REQUESTS_INTERVAL: re-check of a queue that is full, not throttled. */
const KAFKAJS_PENDING_CHECK_MS = 10;

export function clampKafkaThrottleCheck(): boolean {
  const queue = require('kafkajs/src/network/requestQueue') as { prototype: KafkaRequestQueue };
  if (!String(queue.prototype.scheduleCheckPendingRequests).includes('let scheduleAt = this.throttledUntil - Date.now()')) return false;
  queue.prototype.scheduleCheckPendingRequests = function (this: KafkaRequestQueue) {
    let scheduleAt = Math.max(0, this.throttledUntil - Date.now());
    if (this.throttleCheckTimeoutId || (this.pending.length === 0 && scheduleAt === 0)) return;
    if (this.pending.length > 0) scheduleAt = scheduleAt > 0 ? scheduleAt : KAFKAJS_PENDING_CHECK_MS;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, scheduleAt);
  };
  return true;
}
clampKafkaThrottleCheck();

/** Broker answers meaning "not yet" about a topic created a moment ago, which kafkajs does not retry. */
const NOT_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/**
 * Calls `ask` until it answers without a not-yet error and `ready` holds, at most `tries` times with a
 * growing pause (100 ms per try, at most 1 s); the last answer is returned as it is, the last error thrown.
 */
async function whileNotYet<T>(tries: number, ask: () => Promise<T>, ready: (answer: T) => boolean = () => true): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await ask();
      if (ready(answer) || attempt >= tries) return answer;
    } catch (err) {
      if (!NOT_YET.has((err as { type?: string }).type ?? '') || attempt >= tries) throw err;
    }
    await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 1_000)));
  }
}

function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (v !== undefined) out[k] = Array.isArray(v) ? String(v[0]) : String(v);
  }
  return out;
}

/**
 * One shared result of an async set-up (a client's connect): made on first need, shared while pending or
 * made; a failure is passed to its callers and then forgotten, so the next call tries again.
 */
export class RetryableOnce<T> {
  private pending: Promise<T> | undefined;

  get(make: () => Promise<T>): Promise<T> {
    if (this.pending) return this.pending;
    const made = make();
    this.pending = made;
    made.catch(() => {
      if (this.pending === made) this.pending = undefined;
    });
    return made;
  }

  /** Forgets `made` if it is still the shared result (not one made since), releasing it in the background. */
  drop(made: Promise<T>, release: (value: T) => Promise<void>): void {
    if (this.pending !== made) return;
    this.pending = undefined;
    made.then((value) => release(value)).catch(() => undefined);
  }

  /** Forgets the result; `release` gets it if it was made. */
  async forget(release: (value: T) => Promise<void>): Promise<void> {
    const made = this.pending;
    this.pending = undefined;
    if (!made) return;
    const value = await made.catch(() => undefined);
    if (value !== undefined) await release(value).catch(() => undefined);
  }
}

/** TLS and SASL (kafka-security.ts) as kafkajs' client options. */
export function kafkajsSecurity(security: KafkaSecurity): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  return {
    ...(security.tls ? { ssl: { ...security.tls } } : {}),
    ...(security.sasl ? { sasl: { ...security.sasl } as SASLOptions } : {}),
  };
}

/** Longer than any send that is still retrying (the producer's retries × the request timeout, plus backoff). */
const SEND_BOUND_MS = 60_000;

export class KafkaLog {
  private readonly kafka: Kafka;
  // Connected once and shared; a connect that failed (the broker away) is forgotten, so the next call
  // connects again instead of rethrowing that old failure for the life of the process.
  private readonly producerOnce = new RetryableOnce<Producer>();
  private readonly adminOnce = new RetryableOnce<Admin>();
  private readonly consumers = new Set<Consumer>();
  /** Set by disconnect(): no crashed member is replaced after it. */
  private disconnected = false;

  /**
   * @param groupPrefix prefixed to every consumer group id, like topic names, so deployments (and test
   *   worlds) sharing a broker never share a group: a group whose members subscribe to different topics
   *   would hand partitions to members that never read them.
   */
  /**
   * @param fetchMaxWaitMs how long a fetch waits at the broker when no record is there: with minBytes 1 a
   *   fetch returns as soon as one record arrives, so this bounds only the idle poll (and its CPU).
   * @param security TLS and SASL of every connection (kafka-security.ts); unset: plaintext, no authentication.
   */
  constructor(
    brokers: string, clientId: string, private readonly groupPrefix: string, private readonly sessionTimeoutMs = 30_000,
    private readonly fetchMaxWaitMs = 100, security: KafkaSecurity = {},
  ) {
    this.kafka = new Kafka({
      clientId,
      brokers: brokers.split(',').map((b) => b.trim()),
      ...kafkajsSecurity(security),
      logLevel: logLevel.WARN,
      // While a broker is away, back off at most 2 s between attempts (the library's default grows to 30 s):
      // once it is back, producers and consumers find it within 2 s instead of sleeping out a long backoff.
      // A request to a broker that accepted the connection but does not answer fails after 5 s, not 30 s.
      retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 2_000 },
      requestTimeout: 5_000,
      logCreator: () => ({ namespace, level, log }) => {
        const { message, ...extra } = log;
        logger[levelToPino[level] ?? 'info']({ kafka: namespace, ...extra }, message);
      },
    });
  }

  private admin(): Promise<Admin> {
    return this.adminOnce.get(async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    });
  }

  /** Creates missing topics; refuses to go on when an existing topic's partition count differs. */
  async ensureTopics(declarations: Array<{ name: string; partitions: number; decl: TopicDeclaration }>): Promise<void> {
    const admin = await this.admin();
    const existing = new Set(await admin.listTopics());
    const missing = declarations.filter((d) => !existing.has(d.name));
    if (missing.length > 0) {
      // Not kafkajs's waitForLeaders: its wait retries LEADER_NOT_AVAILABLE only, and a topic created a moment
      // ago can still be UNKNOWN_TOPIC_OR_PARTITION to the metadata request (seen in CI); waitForTopics below
      // retries both.
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((d) => ({
          topic: d.name,
          numPartitions: d.partitions,
          replicationFactor: -1,
          configEntries: [
            { name: 'cleanup.policy', value: d.decl.cleanupPolicy },
            { name: 'retention.ms', value: String(d.decl.retentionMs) },
          ],
        })),
      });
    }
    const metadata = await this.waitForTopics(admin, declarations.map((d) => d.name));
    for (const d of declarations) {
      const found = metadata.topics.find((t) => t.name === d.name);
      const count = found?.partitions.length ?? 0;
      if (count !== d.partitions) {
        throw new Error(`topic ${d.name} has ${count} partitions, the declaration says ${d.partitions}: refusing to run`);
      }
    }
  }

  /** The topics' metadata once every partition has a leader (bounded: after the last try, as it is). */
  private waitForTopics(admin: Admin, names: string[]): Promise<Awaited<ReturnType<Admin['fetchTopicMetadata']>>> {
    return whileNotYet(30, () => admin.fetchTopicMetadata({ topics: names }), (m) => m.topics.every((t) => t.partitions.every((p) => p.leader >= 0)));
  }

  /** The broker's effective value of the named settings, per topic. */
  async topicConfigs(names: string[], configNames: readonly string[]): Promise<Map<string, Record<string, string>>> {
    const admin = await this.admin();
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: [...configNames] })),
    });
    return new Map(resources.map((r) => [r.resourceName, Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue]))]));
  }

  async deleteTopics(names: string[]): Promise<void> {
    const admin = await this.admin();
    const existing = new Set(await admin.listTopics());
    const present = names.filter((n) => existing.has(n));
    if (present.length > 0) await admin.deleteTopics({ topics: present });
  }

  /** Offset of the next record to be written, per partition. */
  async endOffsets(topic: string): Promise<Map<number, bigint>> {
    const admin = await this.admin();
    // A topic created a moment ago may not be in every broker's metadata yet (UNKNOWN_TOPIC_OR_PARTITION),
    // which kafkajs does not retry: ask again for a bounded time before giving up.
    const offsets = await whileNotYet(10, () => admin.fetchTopicOffsets(topic));
    return new Map(offsets.map((o) => [o.partition, BigInt(o.high)]));
  }

  private producer(): Promise<Producer> {
    return this.producerOnce.get(async () => {
      // Not the idempotent producer: a retried send may duplicate a record, and that is fine because every
      // command carries a command_id applied once and every event an event id consumers dedup on.
      const producer = this.kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 5, maxRetryTime: 2_000 }, createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      return producer;
    });
  }

  /** Connects the shared producer now (start-up) instead of on the first send, which would wait for it. */
  async connectProducer(): Promise<void> {
    await this.producer();
  }

  async send(topic: string, records: OutgoingRecord[]): Promise<Array<{ partition: number; offset: bigint }>> {
    return this.sendTopics([{ topic, records }]);
  }

  /**
   * Records for several topics in one produce request (a relay batch holds events, order events and
   * commands): one round trip instead of one per topic. Answers one entry per topic-partition written (its base offset).
   */
  async sendTopics(batches: Array<{ topic: string; records: OutgoingRecord[] }>): Promise<Array<{ partition: number; offset: bigint }>> {
    const made = this.producer();
    const producer = await made;
    const records = batches.reduce((n, b) => n + b.records.length, 0);
    const topic = batches.map((b) => b.topic).join(',');
    const sending = producer.sendBatch({
      acks: -1,
      topicMessages: batches.map((b) => ({ topic: b.topic, messages: b.records.map((r) => ({ key: r.key, value: r.value, headers: r.headers })) })),
    });
    // A send answers or fails within its retries (about 40 s at most with the settings above). One that does
    // neither is a producer wedged by a broker restart: failed, and the producer replaced, so the caller's
    // retry goes through a new one instead of waiting on the old one for good.
    let timer: NodeJS.Timeout | undefined;
    const wedged = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        logger.warn({ topic, records, ms: SEND_BOUND_MS }, 'kafka send neither answered nor failed; replacing the producer');
        this.producerOnce.drop(made, (p) => p.disconnect());
        reject(new Error(`kafka send to ${topic} not answered within ${SEND_BOUND_MS} ms`));
      }, SEND_BOUND_MS);
      timer.unref();
    });
    try {
      const result = await Promise.race([sending, wedged]);
      return result.map((r) => ({ partition: r.partition, offset: BigInt(r.baseOffset ?? r.offset ?? '-1') }));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs a consumer group member until stopped. kafkajs restarts a crashed consumer only after errors it deems
   * retriable; after any other crash (seen: "Failed to find group coordinator" while a broker starts under load)
   * it leaves the consumer disconnected for good, and the role would stop consuming while its process lives on
   * (orders refused 5030 long after the broker was back). Such a crash starts a new member here, every
   * RESTART_AFTER_MS until one connects; the stored offsets decide where it reads, as after any re-join.
   */
  async runBatchConsumer(options: BatchConsumerOptions): Promise<RunningConsumer> {
    let stopped = false;
    let current: Consumer | undefined;
    const restart = (): void => {
      setTimeout(() => {
        if (stopped || this.disconnected) return;
        this.startMember(options, onCrash).then(
          (consumer) => {
            current = consumer;
            logger.info({ groupId: options.groupId }, 'consumer started again after a crash');
          },
          (err: unknown) => {
            logger.warn({ err, groupId: options.groupId }, 'consumer could not start again; retrying');
            restart();
          },
        );
      }, RESTART_AFTER_MS);
    };
    const onCrash = (consumer: Consumer, willRestart: boolean, error: unknown): void => {
      if (willRestart || stopped || this.disconnected) return;
      this.consumers.delete(consumer);
      logger.warn({ err: error, groupId: options.groupId }, 'consumer crashed and kafkajs will not restart it; starting a new member');
      restart();
    };
    current = await this.startMember(options, onCrash);
    return {
      stop: async () => {
        stopped = true;
        if (!current) return;
        this.consumers.delete(current);
        await current.disconnect();
      },
    };
  }

  /** One group member: connected, subscribed, running, and (within JOIN_WAIT_MS) owning its partitions. */
  private async startMember(options: BatchConsumerOptions, onCrash: (consumer: Consumer, willRestart: boolean, error: unknown) => void): Promise<Consumer> {
    const consumer = this.kafka.consumer({
      groupId: this.groupPrefix + options.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: this.sessionTimeoutMs,
      rebalanceTimeout: this.sessionTimeoutMs * 2,
      heartbeatInterval: Math.min(3_000, Math.floor(this.sessionTimeoutMs / 3)),
      maxWaitTimeInMs: this.fetchMaxWaitMs,
      minBytes: 1,
    });
    this.consumers.add(consumer);
    consumer.on(consumer.events.CRASH, ({ payload }) => onCrash(consumer, payload.restart, payload.error));
    // A fetch starts after the batches of the one before are handled: a handler that never returns stops them.
    const watched = options.liveness;
    if (watched) consumer.on(consumer.events.FETCH_START, () => markProgress(watched));
    try {
      await consumer.connect();
    } catch (err) {
      this.consumers.delete(consumer);
      throw err;
    }
    for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
    // run() returns before the group is joined; a role counts as started once it owns its partitions, so
    // the first command after start-up is not left waiting out a join (bounded: a slow join only warns).
    let removeJoinListener = () => undefined as void;
    const joined = new Promise<boolean>((resolve) => {
      removeJoinListener = consumer.on(consumer.events.GROUP_JOIN, () => resolve(true));
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        if (batch.isEmpty()) return;
        let sought = false;
        await options.handler(
          {
            topic: batch.topic,
            partition: batch.partition,
            highWatermark: BigInt(batch.highWatermark),
            records: batch.messages.map((m) => ({
              topic: batch.topic,
              partition: batch.partition,
              offset: BigInt(m.offset),
              key: m.key,
              value: m.value,
              headers: headersToStrings(m.headers),
              timestamp: Number(m.timestamp),
            })),
          },
          {
            resolve: (offset) => resolveOffset(offset.toString()),
            seek: (offset) => {
              sought = true;
              consumer.seek({ topic: batch.topic, partition: batch.partition, offset: offset.toString() });
            },
            heartbeat,
            stillOwned: () => isRunning() && !isStale() && !sought,
          },
        );
      },
    });
    let joinTimer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([joined, new Promise<boolean>((resolve) => (joinTimer = setTimeout(() => resolve(false), JOIN_WAIT_MS)))]);
    clearTimeout(joinTimer);
    removeJoinListener();
    if (!inTime) logger.warn({ groupId: options.groupId }, `consumer group not joined within ${JOIN_WAIT_MS} ms; going on`);
    return consumer;
  }

  /**
   * Reads a topic from the beginning up to `until` (exclusive, per partition), batch by batch, with a
   * throwaway consumer group that is deleted afterwards. Partitions are read in parallel, each in order.
   */
  async scan(topic: string, until: Map<number, bigint>, onBatch: (batch: PartitionBatch, heartbeat: () => Promise<void>) => Promise<void>): Promise<void> {
    const pending = new Set([...until].filter(([, end]) => end > 0n).map(([p]) => p));
    if (pending.size === 0) return;
    const groupId = `scan-${process.pid}-${Date.now()}`;
    const next = new Map<number, bigint>();
    // One batch of a partition at a time, even across a re-join that hands the partition out again.
    const turns = new Map<number, Promise<void>>();
    const inTurn = (partition: number, work: () => Promise<void>): Promise<void> => {
      const turn = (turns.get(partition) ?? Promise.resolve()).then(work);
      turns.set(partition, turn.catch(() => undefined));
      return turn;
    };
    let finish!: () => void;
    let fail!: (err: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    const consumer = await this.runBatchConsumer({
      groupId,
      topics: [topic],
      fromBeginning: true,
      partitionsConcurrently: until.size,
      handler: (batch, control) => inTurn(batch.partition, async () => {
        const end = until.get(batch.partition) ?? 0n;
        // Each record once, in order: a consumer that lost its group membership (a batch that outlasted the
        // session on a loaded machine) joins again and is sent the partition from its start.
        const from = next.get(batch.partition) ?? 0n;
        const records = batch.records.filter((r) => r.offset >= from && r.offset < end);
        try {
          // A long batch heartbeats through the handler, or the group moves the partition mid-batch. A heartbeat
          // the group refuses (it is re-joining) is no reason to stop: the records come again and are skipped.
          const heartbeat = () => control.heartbeat().catch(() => undefined);
          if (records.length > 0) await onBatch({ ...batch, records }, heartbeat);
        } catch (err) {
          fail(err);
          return;
        }
        const last = batch.records[batch.records.length - 1].offset;
        if (last + 1n > from) next.set(batch.partition, last + 1n);
        control.resolve(last);
        if (last + 1n >= end) {
          pending.delete(batch.partition);
          if (pending.size === 0) finish();
        }
      }),
    });
    try {
      await done;
    } finally {
      await consumer.stop();
      await (await this.admin()).deleteGroups([this.groupPrefix + groupId]).catch(() => undefined);
    }
  }

  async disconnect(): Promise<void> {
    this.disconnected = true;
    await Promise.allSettled([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    await this.producerOnce.forget((producer) => producer.disconnect());
    await this.adminOnce.forget((admin) => admin.disconnect());
  }
}
