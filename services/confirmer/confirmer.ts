/**
 * The confirmer role. An allocated order is settled (`order.settle`) once every stored hash is in a
 * solidified block and the stake is on the receiver; when the wait window is over and the hashes still
 * missing can no longer land (failed on chain, or the head is past their expiration), it is settled with
 * what landed: partial with the pro-rata refund, or failed (5002) when nothing did. An order nobody could
 * allocate fails at the end of the window too. Also finishes closes (`order.close` landed) once every
 * undelegation of an expiring or reclaimed order is in a solidified block. Command ids derive from the
 * order, so a repeat after a crash applies nothing twice.
 */
import { ChainReader } from '../chain/reads';
import { ChainWriter, expirationOf } from '../chain/writes';
import type { Command } from '../domain/commands';
import { derivedId } from '../domain/ids';
import type { Allocation, Order } from '../domain/orders';
import { chainResource } from '../broadcaster/suppliers';
import { PollingRole, workList, type ChainRoleDeps } from '../broadcaster/work';

export interface ConfirmerDeps extends ChainRoleDeps {
  writer?: ChainWriter;
  reader?: ChainReader;
}

type TxState = 'landed' | 'failed' | 'pending';

export class Confirmer {
  private readonly writer: ChainWriter;
  private readonly reader: ChainReader;
  /**
   * Final answers about transactions (solidified), so each is read until it lands or fails. Bounded: kept
   * only for the transactions of orders still in a work list (allocating or closing), trimmed every pass.
   */
  private readonly known = new Map<string, TxState>();
  /** Transactions of the orders read in the current pass. */
  private live = new Set<string>();

  constructor(private readonly deps: ConfirmerDeps) {
    this.writer = deps.writer ?? ChainWriter.fromConfig(deps.cfg);
    this.reader = deps.reader ?? ChainReader.fromConfig(deps.cfg);
  }

  async tick(): Promise<void> {
    this.live = new Set();
    const commands = [...(await this.settle()), ...(await this.closes())];
    this.trim();
    if (commands.length > 0) await this.deps.bus.append(commands);
  }

  /** Drops the answers about transactions of orders no longer in a work list (settled, failed, closed). */
  private trim(): void {
    for (const txId of this.known.keys()) if (!this.live.has(txId)) this.known.delete(txId);
  }

  /** Entries of the transaction-state cache (for tests). */
  get cachedStates(): number {
    return this.known.size;
  }

  private async state(txId: string): Promise<TxState> {
    const known = this.known.get(txId);
    if (known) return known;
    const info = await this.reader.transactionInfo(txId, 'solid');
    if (!info) return 'pending';
    const state: TxState = info.failed ? 'failed' : 'landed';
    this.known.set(txId, state);
    return state;
  }

  private async states(txIds: string[]): Promise<TxState[]> {
    for (const t of txIds) this.live.add(t);
    const out: TxState[] = [];
    for (let i = 0; i < txIds.length; i += 16) out.push(...(await Promise.all(txIds.slice(i, i + 16).map((t) => this.state(t)))));
    return out;
  }

  private meta(order: Order, step: string) {
    return { commandId: derivedId('command', step, order.id), accountId: order.accountId, issuedAt: this.deps.clock.now(), deadlineAt: null, replyTo: null };
  }

  private settleCommand(order: Order, landed: string[]): Command {
    return { ...this.meta(order, 'order-settle'), type: 'order.settle', orderId: order.id, landedTxIds: landed, deliveredAt: this.deps.clock.now() };
  }

  /** The stake of every landed delegation is on the receiver (head state). */
  private async onReceiver(order: Order, delegations: Allocation[]): Promise<boolean> {
    const need = new Map<string, bigint>();
    for (const a of delegations) need.set(a.from, (need.get(a.from) ?? 0n) + a.sun);
    for (const [from, sun] of need) {
      if ((await this.writer.delegatedSun(from, order.receiver, chainResource(order))) < sun) return false;
    }
    return true;
  }

  private async settle(): Promise<Command[]> {
    const { pool, clock, cfg } = this.deps;
    const now = clock.now();
    const orders = await workList(pool, 'allocating', now);
    const commands: Command[] = [];
    let head: { timestamp: number } | undefined;
    for (const order of orders) {
      const windowOver = now - order.createdAt > cfg.ORDER_WAIT_WINDOW_MS;
      if (order.allocations.length === 0) {
        if (windowOver) commands.push(this.settleCommand(order, []));
        continue;
      }
      const states = await this.states(order.allocations.map((a) => a.txId));
      const landed = order.allocations.filter((_, i) => states[i] === 'landed');
      if (landed.length === order.allocations.length) {
        if (await this.onReceiver(order, landed.filter((a) => a.kind === 'delegate'))) commands.push(this.settleCommand(order, landed.map((a) => a.txId)));
        continue;
      }
      if (!windowOver) continue;
      head ??= await this.writer.head();
      const hopeless = order.allocations.every((a, i) => states[i] !== 'pending' || head!.timestamp > expirationOf(a.signedTx));
      if (hopeless) commands.push(this.settleCommand(order, landed.map((a) => a.txId)));
    }
    return commands;
  }

  private async closes(): Promise<Command[]> {
    const { pool, clock } = this.deps;
    const commands: Command[] = [];
    for (const order of await workList(pool, 'closing', clock.now())) {
      const states = await this.states(order.undelegations.map((u) => u.txId));
      if (states.every((s) => s === 'landed')) {
        commands.push({
          ...this.meta(order, 'order-close-landed'), type: 'order.close', orderId: order.id, step: 'landed',
          reason: order.closeReason ?? 'expired', txs: [], idempotencyKey: null, at: clock.now(), replaces: [],
        });
      }
    }
    return commands;
  }
}

export async function startConfirmer(deps: ConfirmerDeps): Promise<PollingRole> {
  const c = new Confirmer(deps);
  return new PollingRole('confirmer', deps.cfg.CHAIN_POLL_MS, () => c.tick()).start();
}
