/**
 * The promo granter role: delivers each accepted claim as a delegation of energy from the stake pool,
 * then undelegates it when `duration_seconds` is over. Its own small supply (the order supply charges an
 * account and keeps order rows; a grant has neither), with the order supply's rule: sign, store through
 * the log, broadcast only what is stored.
 *
 * Never granted twice: the delegation's `promo.grant signed` command has an id derived from the address,
 * and the processor keeps the first stored transaction only; the granter broadcasts only the stored one
 * and never signs a second delegation. A stored delegation that can no longer land (the head is past its
 * expiration and no block has it) ends the grant as `failed`. An undelegation may be signed again (the
 * chain refuses to return stake twice).
 */
import type { Command, GrantPromoCommand } from '../domain/commands';
import { PROMO_KEY } from '../domain/commands';
import { derivedId } from '../domain/ids';
import { trxFor, SUN_PER_TRX } from '../chain/allocation';
import { poolSigners, type Signer } from '../chain/pool-keys';
import { ChainReader } from '../chain/reads';
import { ChainWriter, expirationOf } from '../chain/writes';
import type { Clock } from '../platform/clock';
import type { CommandBus } from '../platform/command-bus';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { logger } from '../platform/logger';
import { PollingRole } from '../platform/polling-role';
import { txLifetimeMs } from '../delivery/chain-deps';
import type { Redemption } from '../domain/promo/rules';
import { openRedemptions } from './store';

export interface GranterDeps {
  cfg: Config;
  pool: Pool;
  bus: CommandBus;
  clock: Clock;
  writer?: ChainWriter;
  reader?: ChainReader;
}

const BATCH = 100;

export class PromoGranter {
  private readonly writer: ChainWriter;
  private readonly reader: ChainReader;
  private readonly signers: Signer[];

  constructor(private readonly deps: GranterDeps) {
    this.writer = deps.writer ?? ChainWriter.fromConfig(deps.cfg);
    this.reader = deps.reader ?? ChainReader.fromConfig(deps.cfg);
    this.signers = poolSigners(deps.cfg);
  }

  private command(r: Redemption, step: GrantPromoCommand['step'], idPart: string, fields: Partial<GrantPromoCommand> = {}): Command {
    const now = this.deps.clock.now();
    return {
      type: 'promo.grant', commandId: derivedId('command', 'promo-grant', step, r.address, idPart), accountId: PROMO_KEY,
      issuedAt: now, deadlineAt: null, replyTo: null,
      address: r.address, step, txId: null, signedTx: null, poolAddress: null, stakeSun: null, at: now, failure: null, ...fields,
    };
  }

  /** One pass; false when nothing was open (PollingRole.idleBackOff). */
  async tick(): Promise<boolean> {
    const open = await openRedemptions(this.deps.pool, BATCH);
    if (open.length === 0) return false;
    const head = await this.writer.head();
    const commands: Command[] = [];
    for (const r of open) {
      const next = r.status === 'granting' ? await this.grant(r, head.timestamp) : await this.giveBack(r, head.timestamp);
      if (next) commands.push(next);
    }
    if (commands.length) await this.deps.bus.append(commands);
    return true;
  }

  /** Sign (once), broadcast the stored delegation, settle it when in a block or dead. */
  private async grant(r: Redemption, headTimestamp: number): Promise<Command | null> {
    if (r.delegateTxId === null || r.delegateSignedTx === null) return this.signDelegation(r);
    if (await this.reader.transactionInfo(r.delegateTxId, 'full')) return this.command(r, 'delegated', r.delegateTxId, { txId: r.delegateTxId });
    if (headTimestamp > expirationOf(r.delegateSignedTx)) {
      return this.command(r, 'failed', r.delegateTxId, { failure: 'delegation expired without landing' });
    }
    const outcome = await this.writer.broadcast(r.delegateSignedTx);
    if (outcome.kind === 'refused') logger.warn({ address: r.address, outcome }, 'promo delegation refused; retrying until it expires');
    return null;
  }

  private async signDelegation(r: Redemption): Promise<Command | null> {
    const ratio = await this.writer.ratio(this.signers[0].address, 'ENERGY');
    const sun = trxFor(r.energy, ratio) * SUN_PER_TRX;
    for (const signer of this.signers) {
      if ((await this.writer.delegatableSun(signer.address, 'ENERGY')) < sun) continue;
      const ref = await this.writer.refBlock(txLifetimeMs(this.deps.cfg, this.deps.clock));
      const tx = await this.writer.signDelegate(signer, r.address, 'ENERGY', sun, ref);
      // One id per address: a second signature (after a crash) is the same command, applied once.
      return this.command(r, 'signed', 'delegate', { txId: tx.txId, signedTx: tx.signedTx, poolAddress: signer.address, stakeSun: sun });
    }
    return this.command(r, 'failed', 'no-stake', { failure: 'no pool address can delegate the grant' });
  }

  /** At the end of the grant: sign the undelegation (again if the stored one died), broadcast, finish. */
  private async giveBack(r: Redemption, headTimestamp: number): Promise<Command | null> {
    if (r.expiresAt === null || this.deps.clock.now() < r.expiresAt) return null;
    const signer = this.signers.find((s) => s.address === r.poolAddress);
    if (!signer || r.stakeSun === null) return this.command(r, 'returned', 'no-signer', { failure: 'pool key not configured' });
    if (r.undelegateTxId !== null && r.undelegateSignedTx !== null) {
      if (await this.reader.transactionInfo(r.undelegateTxId, 'full')) return this.command(r, 'returned', r.undelegateTxId, { txId: r.undelegateTxId });
      if (headTimestamp <= expirationOf(r.undelegateSignedTx)) {
        await this.writer.broadcast(r.undelegateSignedTx);
        return null;
      }
    }
    const ref = await this.writer.refBlock(txLifetimeMs(this.deps.cfg, this.deps.clock));
    const tx = await this.writer.signUndelegate(signer, r.address, 'ENERGY', r.stakeSun, ref);
    return this.command(r, 'return_signed', tx.txId, { txId: tx.txId, signedTx: tx.signedTx, poolAddress: signer.address, stakeSun: r.stakeSun });
  }
}

export async function startPromoGranter(deps: GranterDeps): Promise<PollingRole> {
  const granter = new PromoGranter(deps);
  // No redemption open (the usual case): the polls space out to CHAIN_IDLE_POLL_MS; a grant then starts that much later at most.
  return new PollingRole('promo-granter', deps.cfg.CHAIN_POLL_MS, () => granter.tick()).idleBackOff(deps.cfg.CHAIN_IDLE_POLL_MS).start();
}
