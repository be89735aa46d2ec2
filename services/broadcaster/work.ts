/**
 * What the chain roles (broadcaster, confirmer, scheduler) share: their work lists read from the orders
 * the processor keeps, the store of signed sets (an order is signed once per purpose, the stored command
 * re-appended after a crash with the same command id), re-broadcasting of stored bytes, the lifetime of
 * signed transactions, and the polling loop.
 */
import { ChainUnavailable } from '../chain/errors';
import type { BroadcastOutcome, ChainWriter } from '../chain/writes';
import type { Command } from '../domain/commands';
import type { Order } from '../domain/orders';
import type { Clock } from '../platform/clock';
import { commandBusFor, type CommandBus } from '../platform/command-bus';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { parseJson, stringifyJson } from '../platform/json';
import { logger } from '../platform/logger';
import type { Runtime } from '../platform/runtime';
import { orderColumns, orderFromRow } from '../processor/order-store';

export interface ChainRoleDeps {
  cfg: Config;
  pool: Pool;
  bus: Pick<CommandBus, 'append'>;
  clock: Clock;
}

/** A bus for roles that append chain facts only (no replies awaited, so no reply subscription). */
export function appendOnlyBus(rt: Runtime): CommandBus {
  return commandBusFor(rt);
}

/**
 * Chain ms a signed transaction stays valid: no longer than the wait window (in real time), so once the
 * window is over and the head is past the expiration, an unlanded transaction can never land.
 */
export function txLifetimeMs(cfg: Pick<Config, 'ORDER_WAIT_WINDOW_MS'>, clock: Clock): number {
  return Math.min(60_000, Math.max(3_000, clock.realDelay(cfg.ORDER_WAIT_WINDOW_MS)));
}

export type WorkList = 'allocating' | 'needs-allocation' | 'allocated' | 'due-close' | 'closing';

const where: Record<WorkList, string> = {
  allocating: "status = 'allocating'",
  'needs-allocation': "status = 'allocating' AND allocations = '[]'::jsonb",
  allocated: "status = 'allocating' AND allocations <> '[]'::jsonb",
  'due-close': "status IN ('confirmed', 'active') AND resource <> 'activation' AND undelegations = '[]'::jsonb AND (close_reason = 'reclaimed' OR expires_at <= $2)",
  closing: "status IN ('confirmed', 'active') AND undelegations <> '[]'::jsonb",
};

export async function workList(pool: Pool, list: WorkList, now: number, limit = 500): Promise<Order[]> {
  const order = list === 'due-close' ? 'expires_at' : 'created_at';
  const { rows } = await pool.query(
    `SELECT ${orderColumns.join(', ')} FROM orders WHERE ${where[list]} ORDER BY ${order} LIMIT $1`,
    list === 'due-close' ? [limit, new Date(now)] : [limit],
  );
  return rows.map(orderFromRow);
}

/** Commands carrying signed sets, revived from their stored JSON (bigints restored). */
function reviveCommand(text: string): Command {
  const c = parseJson(text) as any;
  for (const t of c.txs ?? []) t.sun = BigInt(t.sun);
  if (c.type === 'order.allocate') {
    c.ratioLimit = BigInt(c.ratioLimit);
    c.ratioWeight = BigInt(c.ratioWeight);
  }
  return c as Command;
}

/**
 * The command of an order's signed set for `purpose`: the stored one, else `make()` stored first (the
 * first stored wins when two signers race). Only the stored command is ever appended. A re-signed close
 * (its undelegations expired unlanded) is stored under `close:<first replaced tx id>`, once per attempt.
 */
export async function signedOnce(pool: Pool, orderId: string, purpose: 'allocate' | 'close' | `close:${string}`, make: () => Promise<Command | null>): Promise<Command | null> {
  const read = async () => {
    const { rows } = await pool.query('SELECT command FROM order_signatures WHERE order_id = $1 AND purpose = $2', [orderId, purpose]);
    return rows.length ? reviveCommand(rows[0].command) : null;
  };
  const stored = await read();
  if (stored) return stored;
  const made = await make();
  if (!made) return null;
  await pool.query('INSERT INTO order_signatures (order_id, purpose, command) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [orderId, purpose, stringifyJson(made)]);
  return read();
}

/**
 * Delegations of the signed sets stored for orders still being allocated (applied by the processor or
 * not yet): the stake they promise is not yet out of what the chain reports as delegatable.
 */
export async function storedDelegations(pool: Pool): Promise<Array<{ from: string; resource: 'ENERGY' | 'BANDWIDTH'; sun: bigint; txId: string; signedTx: string }>> {
  const { rows } = await pool.query(
    `SELECT o.resource, s.command FROM order_signatures s JOIN orders o ON o.id = s.order_id
      WHERE s.purpose = 'allocate' AND o.status = 'allocating'`,
  );
  return rows.flatMap((r: { resource: string; command: string }) => {
    const c = reviveCommand(r.command);
    if (c.type !== 'order.allocate') return [];
    const resource = r.resource === 'bandwidth' ? 'BANDWIDTH' as const : 'ENERGY' as const;
    return c.txs.filter((t) => t.kind === 'delegate').map((t) => ({ from: t.from, resource, sun: t.sun, txId: t.txId, signedTx: t.signedTx }));
  });
}

/** Broadcasts stored bytes, again every `everyMs` (real) until told the transaction is done with. */
export class Rebroadcaster {
  private readonly sentAt = new Map<string, number>();
  private readonly dead = new Set<string>();

  constructor(private readonly writer: ChainWriter, private readonly everyMs = 3_000) {}

  /** False once the node said these bytes can never land. */
  alive(txId: string): boolean {
    return !this.dead.has(txId);
  }

  async send(txs: Array<{ txId: string; signedTx: string }>): Promise<void> {
    const now = Date.now();
    const due = txs.filter((t) => !this.dead.has(t.txId) && now - (this.sentAt.get(t.txId) ?? 0) >= this.everyMs);
    for (let i = 0; i < due.length; i += 16) {
      await Promise.all(due.slice(i, i + 16).map(async (t) => {
        const outcome: BroadcastOutcome = await this.writer.broadcast(t.signedTx);
        this.sentAt.set(t.txId, Date.now());
        if (outcome.kind === 'expired') this.dead.add(t.txId);
        if (outcome.kind === 'expired' || outcome.kind === 'refused') logger.warn({ txId: t.txId, ...outcome }, 'broadcast refused');
      }));
    }
  }

  forget(txIds: Iterable<string>): void {
    for (const id of txIds) {
      this.sentAt.delete(id);
      this.dead.delete(id);
    }
  }
}

/** Runs `tick` every CHAIN_POLL_MS until stopped; a failed pass is logged and retried. */
export class PollingRole {
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly name: string, private readonly everyMs: number, private readonly tick: () => Promise<void>) {}

  start(): this {
    this.loop = this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.tick();
      } catch (err) {
        if (err instanceof ChainUnavailable) logger.warn({ err: err.message }, `${this.name}: chain unavailable; retrying`);
        else logger.error({ err }, `${this.name}: pass failed; retrying`);
      }
      await new Promise((r) => setTimeout(r, this.everyMs));
    }
  }
}
