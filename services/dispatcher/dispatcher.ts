/**
 * The webhook dispatcher role. Intake: the checkpointed consumer (platform/checkpointed-consumer.ts) on
 * account-events; per partition, the deliveries of a batch of events and the group's stored offset are
 * written in one PostgreSQL transaction, so a crash loses no event and creates no delivery twice. Sending: a loop over due deliveries (due times
 * persisted on the service clock), each claimed with a lease, sent over HTTPS to the checked address,
 * and its outcome written back: delivered, retried on the schedule, moved to the backup, or dead.
 */
import { randomBytes } from 'node:crypto';
import type https from 'node:https';
import type { Clock } from '../platform/clock';
import { crashPoint } from '../platform/chaos';
import type { Pool } from '../platform/db/pool';
import { startCheckpointedConsumer } from '../platform/checkpointed-consumer';
import type { KafkaLog, RunningConsumer } from '../platform/kafka';
import { logger } from '../platform/logger';
import { Waker } from '../platform/waker';
import type { LogCodec } from '../platform/wire/codec';
import { sendAttempt, webhookAgent, type SendOptions } from '../webhooks/http-client';
import { ANSWER_LIMIT_MS, afterAttempt } from '../webhooks/schedule';
import type { WebhookSecretBox } from '../webhooks/secrets';
import { derivedId } from '../domain/ids';
import { signedRequest } from '../webhooks/signing';
import type { Resolver } from '../webhooks/url-check';
import { EVENT_VERSION } from '../domain/events';
import { GroupWriter } from '../platform/group-writer';
import {
  claimDue, failoverCandidate, insertDeliveries, nextDueAt, recordOutcomes, type AttemptOutcomeRow, type ClaimedDelivery, type IncomingEvent,
} from './store';

export const DISPATCHER_GROUP = 'webhook-dispatcher';
/** A scaled test clock never shrinks the real answer limit below this (TLS set-up on a busy machine). */
const MIN_REAL_ANSWER_MS = 250;
const MAX_IDLE_MS = 1_000;

export interface DispatcherDeps {
  log: KafkaLog;
  codec: LogCodec;
  pool: Pool;
  clock: Clock;
  secrets: WebhookSecretBox;
  allowPrivate: boolean;
  concurrency: number;
  userAgent: string;
  /** Intake: most events written per transaction (default 1,000). */
  maxBatch?: number;
  groupId?: string;
  /** Trust anchors for receivers; default: Node's standard store (and NODE_EXTRA_CA_CERTS). */
  ca?: SendOptions['ca'];
  resolve?: Resolver;
  onDelivered?: (delivery: ClaimedDelivery, answeredAt: number) => void;
}

export interface RunningDispatcher {
  stop(): Promise<void>;
}

export function realAnswerLimitMs(clock: Clock): number {
  return Math.max(clock.realDelay(ANSWER_LIMIT_MS), MIN_REAL_ANSWER_MS);
}

export async function startDispatcher(deps: DispatcherDeps): Promise<RunningDispatcher> {
  const sender = startSender(deps);
  const intake = await startIntake(deps, sender.wake);
  return {
    stop: async () => {
      await intake.stop();
      await sender.stop();
    },
  };
}

/**
 * Intake: the checkpointed consumer on account-events; a batch of events becomes deliveries in the
 * transaction that moves the group's stored offset. An event whose deliveries cannot be stored is
 * refused (logged and skipped) rather than stalling every account behind it.
 */
async function startIntake(deps: DispatcherDeps, wake: () => void): Promise<RunningConsumer> {
  return startCheckpointedConsumer<IncomingEvent, IncomingEvent>({
    log: deps.log,
    pool: deps.pool,
    group: deps.groupId ?? DISPATCHER_GROUP,
    topic: deps.codec.topicName('accountEvents'),
    maxBatch: deps.maxBatch ?? 1_000,
    decode: async (record) => {
      const e = await deps.codec.decodeEvent(record.value as Buffer);
      return {
        eventId: e.eventId, type: e.type, eventVersion: e.eventVersion ?? EVENT_VERSION, createdAt: e.createdAt,
        accountId: e.accountId, network: e.network, data: e.data, seq: record.offset,
      };
    },
    apply: async (items, tx) => {
      const events = items.map((i) => i.value);
      await insertDeliveries(tx, events, deps.clock.now());
      return events;
    },
    crashBeforeCommit: 'dispatcher.intake-before-commit',
    afterCommit: () => wake(),
  });
}

function startSender(deps: DispatcherDeps): { wake: () => void; stop: () => Promise<void> } {
  const answerLimitMs = realAnswerLimitMs(deps.clock);
  const leaseMs = answerLimitMs + 5_000;
  const agent: https.Agent = webhookAgent(deps.ca);
  const token = randomBytes(8).toString('hex');
  const inFlight = new Set<Promise<void>>();
  const waker = new Waker();
  const wake = () => waker.wake();
  const sleep = (ms: number) => waker.sleep(ms);
  // Outcomes finished while one write is under way go together in the next: two statements per group,
  // not two per attempt (at 1,000 deliveries/s the per-attempt writes were the sender's main cost).
  const outcomes = new GroupWriter<AttemptOutcomeRow>((rows) => recordOutcomes(deps.pool, rows));
  // Claims go in chunks of a quarter of the slots: one claim query (the sender's heaviest statement) per
  // chunk, not one per finished attempt.
  const refillAt = Math.max(1, Math.ceil(deps.concurrency / 4));

  const deliver = async (d: ClaimedDelivery) => {
    const secret = deps.secrets.open(d.endpointId, d.secretSealed);
    const request = signedRequest(secret, d.body, {
      eventId: d.eventId, eventType: d.eventType, eventVersion: EVENT_VERSION,
      deliveryId: derivedId('delivery', d.id, d.attempt), attempt: d.attempt,
      timestampSeconds: Math.floor(deps.clock.now() / 1000), userAgent: deps.userAgent,
    });
    crashPoint('dispatcher.before-send');
    const answer = await sendAttempt(d.url, request, { allowPrivate: deps.allowPrivate, answerLimitMs, agent, ca: deps.ca, resolve: deps.resolve });
    crashPoint('dispatcher.after-send');
    const now = deps.clock.now();
    const exhausted = !answer.ok && d.targetAttempt >= d.maxAttempts;
    const step = afterAttempt(
      { targetAttempt: d.targetAttempt, maxAttempts: d.maxAttempts, failedOver: d.failedOver, alternateEndpointId: exhausted && !d.failedOver ? await failoverCandidate(deps.pool, d) : null },
      { ok: answer.ok },
      now,
    );
    await outcomes.add({ delivery: d, step, answer, now });
    if (step.state === 'delivered') deps.onDelivered?.(d, now);
  };

  const loop = (async () => {
    while (waker.running) {
      try {
        const free = deps.concurrency - inFlight.size;
        if (free < refillAt) {
          await Promise.race([...inFlight, sleep(MAX_IDLE_MS)]);
          continue;
        }
        const claimed = await claimDue(deps.pool, { now: deps.clock.now(), limit: free, token, leaseMs });
        for (const d of claimed) {
          const p: Promise<void> = deliver(d)
            .catch((err) => logger.error({ err, deliveryId: d.id }, 'webhook attempt not recorded; its claim will lapse'))
            .finally(() => {
              inFlight.delete(p);
              wake();
            });
          inFlight.add(p);
        }
        if (claimed.length === free) continue;
        const due = await nextDueAt(deps.pool);
        const wait = due === null ? MAX_IDLE_MS : deps.clock.realDelay(Math.max(0, due - deps.clock.now()));
        await sleep(Math.min(MAX_IDLE_MS, Math.max(100, wait)));
      } catch (err) {
        logger.error({ err }, 'webhook sender failed; retrying');
        await sleep(MAX_IDLE_MS);
      }
    }
  })();

  return {
    wake,
    stop: async () => {
      waker.stop();
      await loop;
      await Promise.allSettled([...inFlight]);
      agent.destroy();
    },
  };
}
