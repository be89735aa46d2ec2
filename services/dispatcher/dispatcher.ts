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
import { openedOnce } from '../platform/secret-box';
import type { LogCodec } from '../platform/wire/codec';
import { sendAttempt, webhookAgent, type SendOptions } from '../webhooks/http-client';
import { ANSWER_LIMIT_MS, afterAttempt } from '../webhooks/schedule';
import type { WebhookSecretBox } from '../webhooks/secrets';
import { derivedId } from '../domain/ids';
import { signedRequest } from '../webhooks/signing';
import { cachingResolver, systemResolver, type Resolver } from '../webhooks/url-check';
import { EVENT_VERSION } from '../domain/events';
import {
  failoverCandidate, insertDeliveries, nextDueAt, sendCycle, type AttemptOutcomeRow, type ClaimedDelivery, type CycleResult, type IncomingEvent,
} from './store';

export const DISPATCHER_GROUP = 'webhook-dispatcher';
/**
 * A scaled test clock never shrinks the real answer limit below this: TLS set-up on a busy machine. 250 ms was
 * too little once (webhooks/failover in a fresh-clone CI run at load 11: the backup's first attempt lost).
 */
const MIN_REAL_ANSWER_MS = 1_000;
const MAX_IDLE_MS = 1_000;
/**
 * Sender cycles on their round trip at once (see startSender). 1: two cycles at once gave smaller
 * statements and no more deliveries per second on the shared 2-core machine (bench/README.md, "Webhook
 * dispatcher"); `maxCycles` keeps the choice open for a machine with CPU to spare.
 */
const MAX_CYCLES = 1;
/** Shortest wait for a retry falling due (a delivery due but held back or on a paused endpoint must not spin the loop). */
const MIN_IDLE_MS = 100;
export const DEFAULT_PER_ENDPOINT = 4;

export interface DispatcherDeps {
  log: KafkaLog;
  codec: LogCodec;
  pool: Pool;
  clock: Clock;
  secrets: WebhookSecretBox;
  allowPrivate: boolean;
  concurrency: number;
  /** Attempts in flight to one endpoint at most, across senders (default DEFAULT_PER_ENDPOINT). */
  perEndpoint?: number;
  userAgent: string;
  /** Intake: most events written per transaction (default 1,000). */
  maxBatch?: number;
  groupId?: string;
  /** Trust anchors for receivers; default: Node's standard store (and NODE_EXTRA_CA_CERTS). */
  ca?: SendOptions['ca'];
  resolve?: Resolver;
  onDelivered?: (delivery: ClaimedDelivery, answeredAt: number) => void;
  /** Sender cycles on their round trip at once (default MAX_CYCLES). */
  maxCycles?: number;
  /** After each sender cycle: its real duration, outcomes written, deliveries claimed of those asked (benchmarks). */
  onCycle?: (c: { ms: number; written: number; claimed: number; asked: number }) => void;
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

/**
 * The sender: cycles, each ONE statement that writes the outcomes of the attempts finished since the
 * previous cycle and claims as many due deliveries as there are free slots. A slot is held from the claim
 * until its outcome is written (an earlier event's outcome is what lets the next event of its stream go).
 * Attempts run alongside the cycles, so slots refill as attempts finish, not in waves of the whole
 * concurrency; with `maxCycles` above 1, that many cycles are on their round trip at once, so attempts that
 * finish while one runs are written (and their slots refilled) by the next without waiting for it. Two cycles of one
 * sender are two senders to the database: SKIP LOCKED claims, endpoint rows locked in id order, and an
 * earlier event in flight in another cycle still holds its stream back.
 */
function startSender(deps: DispatcherDeps): { wake: () => void; stop: () => Promise<void> } {
  const answerLimitMs = realAnswerLimitMs(deps.clock);
  const leaseMs = answerLimitMs + 5_000;
  const agent: https.Agent = webhookAgent(deps.ca, Math.max(1, deps.concurrency));
  const resolve = cachingResolver(deps.resolve ?? systemResolver);
  const token = randomBytes(8).toString('hex');
  const sends = new Set<Promise<void>>();
  const cycles = new Set<Promise<void>>();
  const maxCycles = Math.max(1, deps.maxCycles ?? MAX_CYCLES);
  /** Attempts sent whose outcome is not written yet (their slots are still held). */
  let finished: AttemptOutcomeRow[] = [];
  /** Slots claimed and not yet written back; slots asked for by the cycles in flight. */
  let held = 0;
  let asking = 0;
  /** Whether a claim may find more now: false once a claim came back short, until a wake or the idle timer. */
  let more = true;
  /** Counts wakes, so a claim that came back short does not cancel a wake that came while it ran. */
  let wakes = 0;
  /** Cycles ended so far (to tell whether another cycle ended while one ran). */
  let ended = 0;
  let stopped = false;
  let idle: NodeJS.Timeout | undefined;
  // Each endpoint's signing secret opened once per sealed value (a rotated secret is a new sealed value).
  const signer = openedOnce((endpointId, sealed) => deps.secrets.open(endpointId, sealed));

  const attempt = async (d: ClaimedDelivery): Promise<AttemptOutcomeRow> => {
    const request = signedRequest(signer(d.endpointId, d.secretSealed), d.body, {
      eventId: d.eventId, eventType: d.eventType, eventVersion: EVENT_VERSION,
      deliveryId: derivedId('delivery', d.id, d.attempt), attempt: d.attempt,
      timestampSeconds: Math.floor(deps.clock.now() / 1000), userAgent: deps.userAgent,
    });
    crashPoint('dispatcher.before-send');
    const answer = await sendAttempt(d.url, request, { allowPrivate: deps.allowPrivate, answerLimitMs, agent, ca: deps.ca, resolve });
    crashPoint('dispatcher.after-send');
    const now = deps.clock.now();
    const exhausted = !answer.ok && d.targetAttempt >= d.maxAttempts;
    const step = afterAttempt(
      { targetAttempt: d.targetAttempt, maxAttempts: d.maxAttempts, failedOver: d.failedOver, alternateEndpointId: exhausted && !d.failedOver ? await failoverCandidate(deps.pool, d) : null },
      { ok: answer.ok },
      now,
    );
    return { delivery: d, step, answer, now };
  };

  const start = (d: ClaimedDelivery) => {
    held++;
    const p: Promise<void> = attempt(d)
      .then((row) => void finished.push(row), (err) => {
        held--;
        logger.error({ err, deliveryId: d.id }, 'webhook attempt not recorded; its claim will lapse');
      })
      .finally(() => {
        sends.delete(p);
        pump();
      });
    sends.add(p);
  };

  /** Until `ms` (real) pass or something wakes the sender, claims rest. */
  const rest = (ms: number) => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      idle = undefined;
      more = true;
      pump();
    }, ms);
  };

  /** After a claim came back short: rest until the next retry falls due (at least MIN_IDLE_MS, at most MAX_IDLE_MS). */
  let resting = false;
  const restUntilDue = async () => {
    resting = true;
    let wait = MAX_IDLE_MS;
    try {
      const due = await nextDueAt(deps.pool);
      if (due !== null) wait = Math.min(MAX_IDLE_MS, Math.max(MIN_IDLE_MS, deps.clock.realDelay(Math.max(0, due - deps.clock.now()))));
    } catch (err) {
      logger.error({ err }, 'webhook sender could not read the next due time');
    } finally {
      resting = false;
    }
    if (!more && !stopped) rest(wait);
  };

  /**
   * One round trip: writes what finished (freeing those slots whatever the write's fate: an outcome not
   * written lapses) and claims up to `asked` slots; then starts the claimed attempts.
   */
  const cycle = async (asked: number): Promise<void> => {
    const rows = finished;
    finished = [];
    const wakesBefore = wakes;
    const endedBefore = ended;
    asking += asked;
    let result: CycleResult = { written: new Set(), claimed: [] };
    let failed = false;
    const began = performance.now();
    try {
      result = await sendCycle(deps.pool, rows, { now: deps.clock.now(), limit: asked, token, leaseMs, perEndpoint: deps.perEndpoint ?? DEFAULT_PER_ENDPOINT });
    } catch (err) {
      failed = true;
      if (rows.length === 0) logger.error({ err }, 'webhook sender failed; retrying');
      else logger.error({ err, deliveries: rows.length }, 'webhook attempts not recorded; their claims will lapse');
    } finally {
      asking -= asked;
      held -= rows.length;
    }
    deps.onCycle?.({ ms: performance.now() - began, written: result.written.size, claimed: result.claimed.length, asked });
    for (const r of rows) if (r.step.state === 'delivered' && result.written.has(r.delivery.id)) deps.onDelivered?.(r.delivery, r.now);
    for (const d of result.claimed) start(d);
    ended++;
    // Another cycle's snapshot may predate these outcomes, and so have held back the next events of their
    // streams: outcomes written beside another cycle count as a wake.
    if (result.written.size > 0 && (cycles.size > 1 || ended - endedBefore > 1)) {
      wakes++;
      more = true;
    }
    if (failed) {
      more = false;
      if (!stopped) rest(MAX_IDLE_MS);
    } else if (asked > 0 && result.claimed.length < asked && wakes === wakesBefore) {
      // Nothing more due now: new deliveries or a finished attempt wake the sender, else the next retry.
      more = false;
      if (idle === undefined && !resting) void restUntilDue();
    }
  };

  /** Starts cycles while one may run and has something to do: outcomes to write, or free slots and maybe work. */
  function pump(): void {
    while (!stopped && cycles.size < maxCycles) {
      const free = deps.concurrency - held - asking + finished.length;
      // A cycle that writes outcomes also claims: an outcome it writes can release the next event of a stream.
      const asked = free > 0 && (more || finished.length > 0) ? free : 0;
      if (finished.length === 0 && asked === 0) return;
      const c: Promise<void> = cycle(asked).catch((err) => logger.error({ err }, 'webhook sender cycle failed')).finally(() => {
        cycles.delete(c);
        pump();
      });
      cycles.add(c);
    }
  }

  const wake = () => {
    wakes++;
    more = true;
    clearTimeout(idle);
    idle = undefined;
    pump();
  };
  pump();

  return {
    wake,
    stop: async () => {
      stopped = true;
      clearTimeout(idle);
      while (cycles.size > 0 || sends.size > 0) await Promise.allSettled([...cycles, ...sends]);
      if (finished.length > 0) await cycle(0);
      agent.destroy();
    },
  };
}
