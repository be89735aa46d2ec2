/**
 * `./bin/ops reconcile --repair`: acts on the orders-stake findings.
 * - Stake missing for a pool address and receiver (on chain < expected): when an open order there is
 *   still inside its window, the missing stake is delegated again (fresh nonce); otherwise the orders
 *   there, newest first, are failed and refunded through the log (`order.refund` undelivered: the order
 *   ends `failed` with order.failed, an order_refund journal and balance.credited) until what they held
 *   covers what is missing. What of their stake is left on chain the scheduler then takes back.
 * - Orders whose delegation was another order's transaction (stored before transaction ids were unique:
 *   the twin never delivered anything) and are already closed are failed and refunded the same way.
 * - Stake delegated beyond what open orders hold (a leak) is undelegated.
 * Every transaction is signed with its own nonce and waited for in a block. A second run refunds nothing
 * twice: a failed order is refused a second refund by the processor, and leaves the open orders' sums.
 */
import { closedTwins, openOrdersOf } from '../orders/stake-reads';
import { poolSigners, type Signer } from '../chain/pool-keys';
import type { ChainReader } from '../chain/reads';
import { uniqueRef, type ChainResource, type ChainWriter, type SignedTx } from '../chain/writes';
import type { CommandBus } from '../platform/command-bus';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import type { Clock } from '../platform/clock';
import type { NonceSource } from '../chain/nonces';
import { txLifetimeMs } from '../delivery/chain-deps';
import { isFinding, type ReconcileRow } from './check';

export interface RepairDeps {
  cfg: Config;
  pool: Pool;
  clock: Clock;
  bus: Pick<CommandBus, 'submit'>;
  reader: ChainReader;
  writer: ChainWriter;
  nonces: NonceSource;
}

export interface RepairAction {
  action: 'delegated' | 'undelegated' | 'refunded' | 'failed';
  pool?: string;
  receiver?: string;
  sun?: bigint;
  txId?: string;
  orderId?: string;
  detail?: string;
}

export async function repair(deps: RepairDeps, rows: ReconcileRow[]): Promise<RepairAction[]> {
  const { cfg, pool, clock, bus, reader, writer, nonces } = deps;
  const signers = new Map<string, Signer>(poolSigners(cfg).map((s) => [s.address, s]));
  const actions: RepairAction[] = [];

  const landed = async (what: RepairAction, sign: (ref: Awaited<ReturnType<ChainWriter['refBlock']>>) => Promise<SignedTx>) => {
    const ref = uniqueRef(await writer.refBlock(txLifetimeMs(cfg, clock)), await nonces.next());
    const tx = await sign(ref);
    const outcome = await writer.broadcast(tx.signedTx);
    if (outcome.kind !== 'accepted' && outcome.kind !== 'duplicate') {
      actions.push({ ...what, action: 'failed', txId: tx.txId, detail: `${outcome.code}: ${outcome.message}` });
      return;
    }
    const until = Date.now() + 60_000;
    while (!(await reader.transactionInfo(tx.txId, 'full'))) {
      if (Date.now() > until) {
        actions.push({ ...what, action: 'failed', txId: tx.txId, detail: 'not in a block within 60 s' });
        return;
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    actions.push({ ...what, txId: tx.txId });
  };

  const refund = async (order: { id: string; accountId: string }) => {
    const result = await bus.submit({ type: 'order.refund', accountId: order.accountId, orderId: order.id, reason: 'incident_credit', undelivered: true });
    if (result.outcome === 'applied') actions.push({ action: 'refunded', orderId: order.id, detail: 'undelivered: failed and refunded' });
    else actions.push({ action: 'failed', orderId: order.id, detail: `refund ${result.outcome}: ${result.error?.slug ?? ''}` });
  };

  for (const row of rows.filter(isFinding)) {
    const { pool: from, receiver, resource } = row.subject;
    const signer = signers.get(from);
    if (!signer) {
      actions.push({ action: 'failed', pool: from, receiver, detail: 'no key for this pool address' });
      continue;
    }
    const res = resource as ChainResource;
    if (row.difference > 0n) {
      const sun = row.difference;
      await landed({ action: 'undelegated', pool: from, receiver, sun }, (ref) => writer.signUndelegate(signer, receiver, res, sun, ref));
      continue;
    }
    const missing = -row.difference;
    const open = await openOrdersOf(pool, from, receiver, resource);
    const windowEnd = clock.now() + cfg.ORDER_WAIT_WINDOW_MS;
    if (open.some((o) => o.expiresAt === null || o.expiresAt > windowEnd)) {
      await landed({ action: 'delegated', pool: from, receiver, sun: missing }, (ref) => writer.signDelegate(signer, receiver, res, missing, ref));
      continue;
    }
    let covered = 0n;
    for (const o of open) {
      if (covered >= missing) break;
      await refund(o);
      covered += o.sun;
    }
  }
  for (const twin of await closedTwins(pool)) await refund(twin);
  return actions;
}
