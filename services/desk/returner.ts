/**
 * The desk returner role: sends a refused desk payment's refund back to its sender from the desk
 * address, exactly once. The role that holds the desk key (never the API).
 *
 * Sign, store through the log, broadcast only what is stored: the first `desk.return signed` of a payment
 * has an id derived from the payment, so a signature made twice (a crash before the processor stored
 * the first) is one command, applied once, and only the stored transaction is ever broadcast. A stored
 * return that can no longer land (the head is past its expiration and no block has it) is signed again
 * with `replaces` naming it: the processor stores the new one only while the dead one is still stored.
 */
import { createHash } from 'node:crypto';
import type { Command, CommandOf } from '../domain/commands';
import { deskAccountId, type DeskPayment } from '../domain/desk/rules';
import { derivedId } from '../domain/ids';
import { deskSigner } from '../chain/desk-key';
import type { Signer } from '../chain/pool-keys';
import { ChainReader } from '../chain/reads';
import { ChainWriter, expirationOf, uniqueRef } from '../chain/writes';
import { txLifetimeMs } from '../delivery/chain-deps';
import type { Clock } from '../platform/clock';
import type { CommandBus } from '../platform/command-bus';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { PollingRole } from '../platform/polling-role';
import { returningPayments } from './reads';

export interface ReturnerDeps {
  cfg: Config;
  pool: Pool;
  bus: Pick<CommandBus, 'append'>;
  clock: Clock;
  writer?: ChainWriter;
  reader?: ChainReader;
}

/** Payments handled in one pass. */
const BATCH = 100;

export class DeskReturner {
  private readonly writer: ChainWriter;
  private readonly reader: ChainReader;
  private readonly signer: Signer;
  private readonly accountId: string;

  constructor(private readonly deps: ReturnerDeps) {
    this.writer = deps.writer ?? ChainWriter.fromConfig(deps.cfg);
    this.reader = deps.reader ?? ChainReader.fromConfig(deps.cfg);
    this.signer = deskSigner(deps.cfg);
    this.accountId = deskAccountId(deps.cfg.NETWORK, deps.cfg.BRAND);
  }

  private command(p: DeskPayment, step: 'signed' | 'landed', idPart: string, fields: Pick<CommandOf<'desk.return'>, 'txId' | 'signedTx' | 'replaces'>): Command {
    const now = this.deps.clock.now();
    return {
      type: 'desk.return', commandId: derivedId('command', 'desk-return', step, p.paymentId, idPart), accountId: this.accountId,
      issuedAt: now, deadlineAt: null, replyTo: null, paymentId: p.paymentId, step, at: now, amountSun: 0n, ...fields,
    };
  }

  /** One pass; false when nothing was open (PollingRole.idleBackOff). */
  async tick(): Promise<boolean> {
    const open = await returningPayments(this.deps.pool, BATCH);
    if (open.length === 0) return false;
    const head = await this.writer.head();
    const commands: Command[] = [];
    for (const p of open) {
      const next = await this.step(p, head.timestamp);
      if (next) commands.push(next);
    }
    if (commands.length) await this.deps.bus.append(commands);
    return true;
  }

  private async step(p: DeskPayment, headTimestamp: number): Promise<Command | null> {
    if (p.sender === null) return null;
    if (p.returnTxId === null || p.returnSignedTx === null) return this.sign(p, null);
    const info = await this.reader.transactionInfo(p.returnTxId, 'full');
    if (info) return this.command(p, 'landed', p.returnTxId, { txId: p.returnTxId, signedTx: null, replaces: null });
    if (headTimestamp > expirationOf(p.returnSignedTx)) return this.sign(p, p.returnTxId);
    const outcome = await this.writer.broadcast(p.returnSignedTx);
    if (outcome.kind === 'refused') logger.warn({ paymentId: p.paymentId, outcome }, 'desk return refused; retrying until it expires');
    return null;
  }

  private async sign(p: DeskPayment, replaces: string | null): Promise<Command> {
    // Two refused payments of the same amount from the same sender must not sign to the same transaction
    // id (the node would take the second for a duplicate): the payment's id picks the timestamp's nonce.
    const nonce = BigInt(`0x${createHash('sha256').update(p.paymentId).digest('hex').slice(0, 12)}`);
    const ref = uniqueRef(await this.writer.refBlock(txLifetimeMs(this.deps.cfg, this.deps.clock)), nonce);
    const tx = await this.writer.signTransfer(this.signer, p.sender as string, p.refundSun, ref);
    return this.command(p, 'signed', replaces ?? 'first', { txId: tx.txId, signedTx: tx.signedTx, replaces });
  }
}

export async function startDeskReturner(deps: ReturnerDeps): Promise<{ stop(): Promise<void> }> {
  // A deployment without a desk (no DESK_ADDRESS, mainnet's default) runs the role idle, with no key.
  if (!deps.cfg.DESK_ADDRESS) {
    logger.info('no DESK_ADDRESS: the desk returner has nothing to return');
    return { stop: async () => undefined };
  }
  const returner = new DeskReturner(deps);
  // Nothing to return (the usual case): the polls space out to CHAIN_IDLE_POLL_MS; a refund then starts that much later at most.
  return new PollingRole('desk-returner', deps.cfg.DESK_POLL_MS, () => returner.tick()).idleBackOff(deps.cfg.CHAIN_IDLE_POLL_MS).start();
}
