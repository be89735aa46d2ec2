/**
 * Synchronous answers over the asynchronous log: append a command, then wait for the processor's result
 * on Redis, reading PostgreSQL when the Redis message is missed. At the deadline the caller claims the
 * command as abandoned in the same table the processor writes, so a 503 is always true: whichever
 * commits first wins, and the processor refuses a command claimed before it got there.
 */
import { randomId } from '../domain/ids';
import { refusedResult, type CommandResult } from '../domain/command-result';
import type { Command, CommandBody, CommandMeta } from '../domain/commands';
import type { Clock } from './clock';
import type { Pool } from './db/pool';
import { parseOwnJson, stringifyJson } from './json';
import type { KafkaLog } from './kafka';
import { logger } from './logger';
import { createRedis, deliveryChannel, parseDeliveryNotices, replyChannel, type DeliveryNotice, type Redis } from './redis';
import { traceHeaders } from './telemetry';
import { readResults } from './db/command-results';
import type { LogCodec } from './wire/codec';
import type { Connections } from './connections';
import { AppendBatcher } from './append-batcher';

/** Extra wait past the deadline before giving up, so a result committed right at the deadline is still seen. */
const GRACE_MS = 1_000;
const POLL_EVERY_MS = 500;
/** Most command results read in one query. */
const READ_MAX = 1_000;

export type NewCommand = CommandBody & { accountId: string };

export interface CommandBusDeps {
  log: KafkaLog;
  codec: LogCodec;
  pool: Pool;
  redisUrl: string;
  /** REDIS_TLS_CA_FILE, for the reply subscriber's own connection. */
  redisTlsCaFile?: string;
  network: string;
  clock: Clock;
  timeoutMs: number;
  /** Price per unit of 5m energy in force, stamped on every command (balance.low estimates from it). */
  energyPrice5mSun?: bigint | null;
  /** Group commit: linger (real ms) and most records per produce request; default 2 ms, 500. */
  lingerMs?: number;
  appendMax?: number;
  /** While no produce request is outstanding, append at the end of the event loop's turn instead of lingering. */
  idleFlush?: boolean;
  /** Commands waiting for an answer at once; past it submit sheds load (503, nothing appended). Default 1,000. */
  maxWaiting?: number;
}

/** The bus of a process, from its runtime: the one place that knows how a bus is wired. */
export function commandBusFor(rt: Connections, overrides: Partial<CommandBusDeps> = {}): CommandBus {
  const fiveMinuteEnergy = rt.prices.rows
    .find((r) => r.resource === 'energy' && r.tier === '5m');
  return new CommandBus({
    log: rt.log, codec: rt.codec, pool: rt.pool, redisUrl: rt.cfg.REDIS_URL, redisTlsCaFile: rt.cfg.REDIS_TLS_CA_FILE, network: rt.cfg.NETWORK,
    clock: rt.clock, timeoutMs: rt.cfg.COMMAND_TIMEOUT_MS, energyPrice5mSun: fiveMinuteEnergy?.price_sun_per_unit ?? null,
    lingerMs: rt.cfg.COMMAND_LINGER_MS, appendMax: rt.cfg.COMMAND_APPEND_MAX, idleFlush: rt.cfg.COMMAND_IDLE_FLUSH, maxWaiting: rt.cfg.COMMAND_MAX_WAITING,
    ...overrides,
  });
}

export class CommandBus {
  readonly instanceId = randomId('command', 8).replace('cmd_', 'inst_');
  private readonly waiting = new Map<string, (result: CommandResult) => void>();
  private subscriber: Redis | undefined;
  private readonly batcher: AppendBatcher;
  private readonly pendingReads = new Map<string, Array<(result: CommandResult | undefined) => void>>();
  private reading = false;
  private readonly deliveryListeners: Array<(notices: DeliveryNotice[]) => void> = [];

  constructor(private readonly deps: CommandBusDeps) {
    const topic = deps.codec.topicName('accountCommands');
    this.batcher = new AppendBatcher({
      lingerMs: deps.lingerMs ?? 2,
      maxRecords: deps.appendMax ?? 500,
      idleFlush: deps.idleFlush ?? false,
      send: (records) => deps.log.send(topic, records),
    });
  }

  async start(): Promise<void> {
    this.subscriber = createRedis(this.deps.redisUrl, { autoPipeline: false, tlsCaFile: this.deps.redisTlsCaFile });
    const delivered = deliveryChannel(this.deps.network);
    this.subscriber.on('message', (channel, message) => {
      if (channel === delivered) {
        const notices = parseDeliveryNotices(message);
        for (const listener of this.deliveryListeners) listener(notices);
        return;
      }
      const result = parseOwnJson(message) as CommandResult;
      this.waiting.get(result.commandId)?.(result);
    });
    await this.subscriber.subscribe(replyChannel(this.deps.network, this.instanceId), delivered);
  }

  /**
   * Called with the orders the processor committed as broadcast (`delegated`), on the reply connection
   * this instance already holds: a POST /v1/orders answer waiting for one is ready.
   */
  onDelivered(listener: (notices: DeliveryNotice[]) => void): void {
    this.deliveryListeners.push(listener);
  }

  async stop(): Promise<void> {
    this.subscriber?.disconnect();
  }

  /** A command stamped with its id, time, deadline and this instance's reply channel. */
  stamp(body: NewCommand, waitForReply = true, commandId?: string): Command {
    const issuedAt = this.deps.clock.now();
    const meta: CommandMeta = {
      commandId: commandId ?? randomId('command'),
      accountId: body.accountId,
      issuedAt,
      deadlineAt: waitForReply ? issuedAt + this.deps.timeoutMs : null,
      replyTo: waitForReply ? this.instanceId : null,
      ...(this.deps.energyPrice5mSun ? { energyPrice5mSun: this.deps.energyPrice5mSun } : {}),
    };
    return { ...body, ...meta } as Command;
  }

  /** Appends without waiting for the result (chain facts, follow-ups): such commands carry no deadline. */
  async append(commands: Command[], headers: Record<string, string> = traceHeaders()): Promise<void> {
    const records = await Promise.all(commands.map(async (c) => ({ ...(await this.deps.codec.encodeCommand(c)), headers })));
    await this.batcher.append(records);
  }

  /** Appends and waits for the answer; the answer is final (applied, rejected, or refused with nothing done). */
  async submit(
    body: NewCommand, headers: Record<string, string> = traceHeaders(), commandId?: string, onAppended?: () => void,
  ): Promise<CommandResult> {
    // A derived commandId (batch executor) makes a repeat after a crash the same command: applied once, same answer.
    const command = this.stamp(body, true, commandId);
    // Shed load before appending: the 503 is true because nothing reached the log.
    if (this.waiting.size >= (this.deps.maxWaiting ?? 1_000)) return refusedResult(command.commandId, 'abandoned');
    const reply = new Promise<CommandResult>((resolve) => this.waiting.set(command.commandId, resolve));
    const deadline = (command.deadlineAt as number) + GRACE_MS;
    // The append is bounded by the deadline too: with the broker away the client retries for much longer
    // than a caller waits. The claim below makes the 503 true even if the append lands later.
    const appended = await appendWithin(this.append([command], headers), this.deps.clock.realDelay((command.deadlineAt as number) - this.deps.clock.now()));
    if (appended !== 'ok') {
      if (appended !== 'late') logger.warn({ err: appended.err, commandId: command.commandId }, 'append failed; abandoning the command');
      else logger.warn({ commandId: command.commandId }, 'append not acknowledged by the deadline; abandoning the command');
      return this.finish(command.commandId, await this.abandon(command));
    }
    onAppended?.();
    while (true) {
      const waitMs = Math.min(POLL_EVERY_MS, this.deps.clock.realDelay(deadline - this.deps.clock.now()));
      // The poll's timer is cleared when the answer comes first (nearly always): left to run, every request
      // had a timer firing half a second after its answer.
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([reply, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, waitMs))))]);
      clearTimeout(timer);
      if (result) return this.finish(command.commandId, result);
      const stored = await this.readResult(command.commandId);
      if (stored) return this.finish(command.commandId, stored);
      if (this.deps.clock.now() >= deadline) return this.finish(command.commandId, await this.abandon(command));
    }
  }

  private finish(commandId: string, result: CommandResult): CommandResult {
    this.waiting.delete(commandId);
    return result;
  }

  /**
   * The stored answer; none while PostgreSQL is away (the wait goes on until the deadline). Reads asked
   * for while one is under way go together in the next, one query for all: under load every waiting
   * command polls at once, and one read each held the pool the requests' authentication needs.
   */
  private readResult(commandId: string): Promise<CommandResult | undefined> {
    return new Promise((resolve) => {
      const readers = this.pendingReads.get(commandId);
      if (readers) readers.push(resolve);
      else this.pendingReads.set(commandId, [resolve]);
      if (!this.reading) void this.readPending();
    });
  }

  private async readPending(): Promise<void> {
    this.reading = true;
    try {
      while (this.pendingReads.size > 0) {
        const batch = [...this.pendingReads].slice(0, READ_MAX);
        for (const [id] of batch) this.pendingReads.delete(id);
        let found = new Map<string, CommandResult>();
        try {
          found = await readResults(this.deps.pool, batch.map(([id]) => id));
        } catch (err) {
          logger.warn({ err, commands: batch.length }, 'reading command results failed; still waiting');
        }
        for (const [id, readers] of batch) for (const r of readers) r(found.get(id));
      }
    } finally {
      this.reading = false;
    }
  }

  /** Claims the command as refused unless the processor got there first; either way the answer is final. */
  private async abandon(command: Command): Promise<CommandResult> {
    const refused = refusedResult(command.commandId, 'abandoned');
    // PostgreSQL away at the deadline: nothing can be claimed; the processor refuses the command past its
    // deadline once it can commit again. (Missed only: a result committed just before PostgreSQL went away
    // whose Redis reply was lost too.)
    const claimed = await this.deps.pool.query(
      `INSERT INTO command_results (command_id, account_id, command_type, outcome, http_status, error, refusal_reason)
       VALUES ($1, $2, $3, 'refused', $4, $5, 'abandoned') ON CONFLICT (command_id) DO NOTHING`,
      [command.commandId, command.accountId, command.type, refused.status, stringifyJson(refused.error)],
    ).catch((err: unknown) => (logger.warn({ err, commandId: command.commandId }, 'claim failed; the deadline refuses the command'), undefined));
    if (!claimed || claimed.rowCount === 1) return refused;
    return (await this.readResult(command.commandId)) ?? refused;
  }
}

/** 'ok' once the append is acknowledged, 'late' when `ms` pass first, or the failure. */
async function appendWithin(append: Promise<void>, ms: number): Promise<'ok' | 'late' | { err: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, ms))));
  try {
    return await Promise.race([append.then(() => 'ok' as const, (err: unknown) => ({ err })), late]);
  } finally {
    clearTimeout(timer);
  }
}
