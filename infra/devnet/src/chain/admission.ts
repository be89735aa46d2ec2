import { badSignature, duplicate, expired, Refusal, tapos } from '../actuators/refusal';
import { toBase58 } from '../crypto/address';
import type { SignaturePool } from '../crypto/signatures';
import { log } from '../log';
import { PARAMS } from '../state/params';
import type { SignedTx } from '../tx/transaction';
import type { Chain } from './chain';
import type { Fate, Faults } from './faults';

/** java-tron's limit on how far ahead a transaction may expire (MAXIMUM_TIME_UNTIL_EXPIRATION). */
const MAX_EXPIRATION_AHEAD_MS = 86_400_000;
/** Owner (0) and the default active permission (2) are the only ones accounts have here. */
const DEFAULT_PERMISSIONS = new Set([0, 2]);

export type BroadcastAnswer = { result: true; txid: string } | { code: string; txid: string; message: string };

/**
 * The broadcast path of Wallet.broadcastTransaction + Manager.pushTransaction: cheap checks first
 * (signature shape, duplicate, expiration, TAPOS), then the signature off-thread, then execution
 * against pending state. Faults decide what happens to a transaction that passed.
 */
export class Admission {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly chain: Chain,
    private readonly signatures: SignaturePool,
    private readonly faults: Faults,
    private readonly blockMs: number,
  ) {}

  /** `faults: false` for the node's own transactions (admin faucet), which faults must not hit. */
  async broadcast(tx: SignedTx, options: { faults: boolean } = { faults: true }): Promise<BroadcastAnswer> {
    try {
      await this.admit(tx, options.faults);
      return { result: true, txid: tx.txid };
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      return { code: err.code, txid: tx.txid, message: Buffer.from(err.message, 'utf8').toString('hex') };
    }
  }

  private async admit(tx: SignedTx, withFaults: boolean): Promise<void> {
    for (const sig of tx.signatures) {
      if (sig.length !== 130) throw badSignature(`Signature size is ${sig.length / 2}`);
    }
    if (this.chain.isTaken(tx.txid) || this.inFlight.has(tx.txid)) throw duplicate();
    this.checkExpiration(tx);
    if (!this.chain.taposMatches(tx.raw.refBlockBytes, tx.raw.refBlockHash)) {
      throw tapos(`Tapos failed, different block hash, ${tx.raw.refBlockBytes.toString('hex')}, ${tx.raw.refBlockHash.toString('hex')}`);
    }
    this.inFlight.add(tx.txid);
    try {
      await this.checkSignature(tx);
      // State may have moved while the signature was checked: re-check before executing.
      if (this.chain.isTaken(tx.txid)) throw duplicate();
      this.checkExpiration(tx);
      const trial = this.chain.trial(tx);
      const fate: Fate = withFaults ? this.faults.fateOf(tx.txid) : { kind: 'normal' };
      if (fate.kind === 'normal') this.chain.commit(trial);
      else if (fate.kind === 'never') this.chain.swallow(tx.txid);
      else if (fate.kind === 'delay') this.chain.hold(tx, this.chain.head().number + fate.blocks);
      if (fate.kind !== 'normal') log('info', 'fault applied to broadcast', { txid: tx.txid, fault: fate.kind });
    } finally {
      this.inFlight.delete(tx.txid);
    }
  }

  private checkExpiration(tx: SignedTx): void {
    const head = this.chain.head().timestamp;
    const expiration = Number(tx.raw.expiration);
    if (expiration <= head || expiration > head + MAX_EXPIRATION_AHEAD_MS || expiration < head + Math.min(this.blockMs, 3000)) {
      throw expired(`Transaction expiration, transaction expiration time is ${expiration}, but headBlockTime is ${head}`);
    }
  }

  private async checkSignature(tx: SignedTx): Promise<void> {
    if (tx.signatures.length === 0) throw badSignature('miss sig or contract');
    if (tx.signatures.length > Number(PARAMS.totalSignNum)) throw badSignature('too many signatures');
    if (!DEFAULT_PERMISSIONS.has(tx.raw.permissionId)) throw badSignature("permission isn't exit");
    if (tx.signatures.length > 1) throw badSignature(`Signature count is ${tx.signatures.length} more than key counts of permission : 1`);
    const owner = tx.raw.contract.owner;
    const result = await this.signatures.check({ rawBytes: tx.rawBytes, txid: tx.txid, signature: tx.signatures[0], owner });
    if ('error' in result) throw badSignature(result.error);
    if (result.signer !== owner) {
      throw badSignature(`${tx.signatures[0]} is signed by ${toBase58(result.signer)} but it is not contained of permission.`);
    }
  }
}

/**
 * The create-transaction endpoints run only the contract's validation (java-tron calls
 * actuator.validate()); not being able to pay bandwidth is found at broadcast, not here.
 */
export function dryValidate(chain: Chain, tx: SignedTx): void {
  try {
    chain.trial(tx);
  } catch (err) {
    if (err instanceof Refusal && err.code !== 'CONTRACT_VALIDATE_ERROR') return;
    throw err;
  }
}
