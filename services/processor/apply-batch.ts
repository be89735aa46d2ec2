/**
 * Applies a batch of decoded commands inside the caller's transaction: claim each command once, decide
 * refusals, run the pure domain function over in-memory state, then write every effect in bulk.
 * The live processor and the replay both call this; only the refusal policy differs.
 */
import type { Account } from '../domain/account';
import { applyCommand } from '../domain/apply';
import { refusedResult, type CommandResult } from '../domain/command-result';
import type { Command, RefusalReason } from '../domain/commands';
import { errorCatalog } from '../domain/errors';
import { derivedId } from '../domain/ids';
import type { Journal } from '../domain/ledger';
import type { Order } from '../domain/orders/rules';
import type { ApplyContext, StateView } from '../domain/outcome';
import { WriteGroup } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import {
  claimCommands, claimFollowUps, finishResults, loadAccounts, readResults, saveAccounts, saveJournals, saveOutbox, type OutboxMessage,
} from './store';
import { depositIdsOf, loadDeposits, saveDeposits } from './deposit-store';
import type { Deposit } from '../domain/deposits';
import { processorStates } from './processor-states';

export interface RefusalPolicy {
  /** Why this command must not apply, or null to apply it. */
  refusalFor(command: Command): RefusalReason | null;
}

export interface AppliedCommand {
  command: Command;
  result: CommandResult;
  /**
   * The orders an `order.allocations` applied as broadcast (its body's `delegated`), as they stand at the
   * end of the slice: what the waiting POST /v1/orders answers say (processor.ts tells them after the commit).
   */
  broadcast?: Order[];
}

type WorkCommand = Exclude<Command, { type: 'command.refused' }>;

/** The marker that tells a replay to refuse the same command; its id and time derive from that command. */
export function refusalMarker(command: Command, reason: RefusalReason): OutboxMessage {
  const marker: Command = {
    type: 'command.refused',
    commandId: derivedId('command', 'refused', command.commandId),
    accountId: command.accountId,
    issuedAt: command.issuedAt,
    deadlineAt: null,
    replyTo: null,
    refusedCommandId: command.commandId,
    reason,
  };
  return { destination: 'account-commands', messageId: marker.commandId, accountId: command.accountId, payload: marker, createdAt: command.issuedAt, traceContext: null };
}

/**
 * A follow-up applies in the same slice, right after the command that produced it (a step of its own: its
 * own derived command id, result row and events), instead of through the outbox, the relay and the log
 * again, when everything it reads is surely in this slice's state whatever the slicing (a replay slices
 * the log differently and must do the same): same account (same partition), and an order the parent has
 * just written, read by id (no Idempotency-Key record to look up). Others still go through the log.
 */
export function appliesInline(parent: Command, written: readonly { id: string }[], followUp: WorkCommand): boolean {
  if (followUp.accountId !== parent.accountId || !('orderId' in followUp)) return false;
  if ('idempotencyKey' in followUp && followUp.idempotencyKey !== null) return false;
  return written.some((o) => o.id === followUp.orderId);
}

export async function applyBatch(
  client: PoolClient,
  commands: Command[],
  ctx: ApplyContext,
  policy: RefusalPolicy,
  traceOfRecord: (command: Command) => Record<string, string> | null,
  sourcePartition: number,
  tail?: WriteGroup,
): Promise<AppliedCommand[]> {
  // Markers only matter to a replay's refusal policy; the same command id twice in one batch applies once.
  const seen = new Set<string>();
  const work = commands.filter((c): c is WorkCommand => {
    if (c.type === 'command.refused' || seen.has(c.commandId)) return false;
    seen.add(c.commandId);
    return true;
  });

  // The claim and every read of state in one round trip (the pool's clients pipeline; they run in this order).
  // The state is read for every command of the slice, not only the ones the claim finds new: a duplicate's rows
  // are read and left unchanged, and the reads need not wait for the claim's answer.
  const [claimed, earlier, state, deposits, features] = await Promise.all([
    claimCommands(client, work),
    // After the claim: what this transaction claimed is pending, so only commands applied (or abandoned) before answer.
    readResults(client, work.map((c) => c.commandId)),
    loadAccounts(client, [...new Set(work.map((c) => c.accountId))]),
    loadDeposits(client, depositIdsOf(work)),
    Promise.all(processorStates.map((kind) => kind.load(client, work))),
  ]);
  const outbox: OutboxMessage[] = [];
  const finished: AppliedCommand[] = [];

  // Not claimed: applied before (a duplicate on the log), or refused by a caller that gave up waiting.
  for (const command of work) {
    const result = claimed.has(command.commandId) ? undefined : earlier.get(command.commandId);
    if (result?.refusalReason === 'abandoned') outbox.push(refusalMarker(command, 'abandoned'));
  }

  const fresh = work.filter((c) => claimed.has(c.commandId));
  const changed = new Map<string, Account>();
  const journals: Journal[] = [];
  const changedDeposits = new Map<string, Deposit>();
  // Each feature's state for the slice's commands, served to the handlers under its StateView name.
  const featureViews: Partial<StateView> = {};
  processorStates.forEach((kind, i) => {
    (featureViews as Record<string, unknown>)[kind.view] = features[i];
  });
  const view: StateView = { ...featureViews, account: (id: string) => state.get(id), deposit: (id: string) => deposits.get(id) };

  // Follow-ups applied right after their parent (see appliesInline), and those of them this slice must claim.
  const inline = new Set<string>();
  const claimLater: WorkCommand[] = [];
  // An inline follow-up has no record of its own: it carries its parent's trace.
  const traces = new Map<string, Record<string, string> | null>();
  const traceContextOf = (command: Command) => (traces.has(command.commandId) ? (traces.get(command.commandId) ?? null) : traceOfRecord(command));
  const step = (command: WorkCommand): void => {
    const reason = policy.refusalFor(command);
    if (reason) {
      outbox.push(refusalMarker(command, reason));
      finished.push({ command, result: refusedResult(command.commandId, reason) });
      return;
    }
    const outcome = applyCommand(view, command, ctx);
    if (outcome.kind === 'rejected') {
      const status = errorCatalog[outcome.error.slug].http;
      finished.push({ command, result: { commandId: command.commandId, outcome: 'rejected', status, body: null, error: outcome.error, refusalReason: null } });
      return;
    }
    const { effects } = outcome;
    for (const account of effects.accounts) {
      state.set(account.id, account);
      changed.set(account.id, account);
    }
    journals.push(...effects.journals);
    const trace = traceContextOf(command);
    for (const feature of features) feature.absorb(effects, command, trace);
    for (const deposit of effects.deposits ?? []) {
      deposits.set(deposit.depositId, deposit);
      changedDeposits.set(deposit.depositId, deposit);
    }
    for (const event of effects.events) {
      outbox.push({ destination: 'account-events', messageId: event.eventId, accountId: event.accountId, payload: event, createdAt: event.createdAt, traceContext: trace });
    }
    for (const event of effects.orderEvents ?? []) {
      outbox.push({ destination: 'order-events', messageId: event.eventId, accountId: event.accountId, payload: event, createdAt: event.occurredAt, traceContext: trace });
    }
    const next: WorkCommand[] = [];
    for (const followUp of effects.followUps) {
      if (followUp.type !== 'command.refused' && appliesInline(command, effects.orders ?? [], followUp)) {
        next.push(followUp);
        continue;
      }
      outbox.push({ destination: 'account-commands', messageId: followUp.commandId, accountId: followUp.accountId, payload: followUp, createdAt: followUp.issuedAt, traceContext: trace });
    }
    finished.push({ command, result: { commandId: command.commandId, outcome: 'applied', status: outcome.status, body: outcome.body, error: null, refusalReason: null } });
    for (const followUp of next) {
      // Its copy on the log (written by older code, which sent follow-ups through it) applies once: here
      // when it is in this slice (claimed above; skipped where it stands), never when applied before.
      if (inline.has(followUp.commandId) || (seen.has(followUp.commandId) && !claimed.has(followUp.commandId))) continue;
      inline.add(followUp.commandId);
      if (!claimed.has(followUp.commandId)) claimLater.push(followUp);
      traces.set(followUp.commandId, trace);
      step(followUp);
    }
  };
  for (const command of fresh) if (!inline.has(command.commandId)) step(command);
  for (const f of finished) {
    const delegated = f.command.type === 'order.allocations' ? (f.result.body?.delegated as string[] | undefined) : undefined;
    if (delegated?.length) f.broadcast = delegated.flatMap((id) => view.orders?.byId(id) ?? []);
  }

  // The ledger's and the orders' writes in one statement (one round trip), before the other stores' (whose
  // rows may refer to orders); the outbox and the results go last, in `tail` when the caller sends one.
  const writes = new WriteGroup();
  const last = tail ?? new WriteGroup();
  claimFollowUps(writes, claimLater);
  saveAccounts(writes, [...changed.values()]);
  saveJournals(writes, journals);
  saveDeposits(writes, [...changedDeposits.values()]);
  for (const feature of features) feature.stage?.({ first: writes, last });
  // Not awaited: the last group follows it (the same round trip, with the COMMIT when the caller sends `tail`),
  // unless a store's own writes wait for it first. Those run in order after it (the client pipelines); when one
  // fails, the first group's error is the one to report (the later statement only says the transaction is aborted).
  const first = writes.send(client);
  first.catch(() => undefined);
  try {
    for (const feature of features) await feature.write?.(client);
  } catch (err) {
    await first;
    throw err;
  }
  saveOutbox(last, outbox, sourcePartition);
  finishResults(last, finished.map((f) => f.result));
  last.follows(first);
  if (!tail) await last.send(client);
  return finished;
}

/**
 * A command that cannot be applied (the database refused its data, or pure code failed on it): claimed as
 * refused `unprocessable` with a marker on the log, so its caller is answered and a replay refuses it too.
 * A command claimed before (applied, or abandoned by its caller) keeps its first answer.
 */
export async function refuseUnprocessable(client: PoolClient, command: Command, sourcePartition: number, tail?: WriteGroup): Promise<AppliedCommand[]> {
  if (command.type === 'command.refused') return [];
  const claimed = await claimCommands(client, [command]);
  const writes = tail ?? new WriteGroup();
  let refused: AppliedCommand[] = [];
  if (!claimed.has(command.commandId)) {
    const earlier = (await readResults(client, [command.commandId])).get(command.commandId);
    if (earlier?.refusalReason === 'abandoned') saveOutbox(writes, [refusalMarker(command, 'abandoned')], sourcePartition);
  } else {
    const result = refusedResult(command.commandId, 'unprocessable');
    saveOutbox(writes, [refusalMarker(command, 'unprocessable')], sourcePartition);
    finishResults(writes, [result]);
    refused = [{ command, result }];
  }
  if (!tail) await writes.send(client);
  return refused;
}
