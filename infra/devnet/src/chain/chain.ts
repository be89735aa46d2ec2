import type { ExecContext } from '../actuators/context';
import { executeTx } from '../actuators/execute';
import { Refusal } from '../actuators/refusal';
import type { ContractRegistry } from '../contracts/registry';
import type { KeyPair } from '../crypto/keys';
import { log } from '../log';
import { StateView } from '../state/accounts';
import { SLOT_MS } from '../state/params';
import { Layer, type StateChanges } from '../state/store';
import type { SignedTx } from '../tx/transaction';
import { sealBlock, type Block, type StoredTx } from './block';

/** Blocks a TAPOS reference may point back to (java-tron's RecentBlockStore keeps 65 536). */
const TAPOS_WINDOW = 65_536;

interface Held {
  readonly tx: SignedTx;
  readonly dueBlock: number;
}

export interface ChainParts {
  readonly genesisMs: number;
  readonly solid: Layer;
  /** Layers of the unsolidified blocks, oldest first; each is the parent of the next. */
  readonly unsolid: Layer[];
  readonly blocks: Block[];
}

/** A block just made, with the state changes its transactions made (what persistence appends with it). */
export interface ProducedBlock {
  readonly block: Block;
  readonly changes: StateChanges;
}

/**
 * The chain: blocks, the layered state (solid ← unsolidified blocks ← pending), the transaction
 * index, and the transactions waiting to be included.
 */
export class Chain {
  readonly genesisMs: number;
  readonly blocks: Block[];
  private readonly solid: Layer;
  private readonly unsolid: Layer[];
  private pending: Layer;
  private pendingTxs: StoredTx[] = [];
  private held: Held[] = [];
  private readonly index = new Map<string, StoredTx>();
  /** Txids the node has taken (pending, held back by a fault, or included): a repeat is a duplicate. */
  private readonly taken = new Set<string>();

  constructor(
    parts: ChainParts,
    readonly contracts: ContractRegistry,
    private readonly witness: KeyPair,
    private readonly solidifyDepth: number,
  ) {
    this.genesisMs = parts.genesisMs;
    this.blocks = parts.blocks;
    this.solid = parts.solid;
    this.unsolid = parts.unsolid;
    this.pending = new Layer(this.unsolid.at(-1) ?? this.solid);
    // Layers replayed at restart (or a lower DEVNET_SOLIDIFY_DEPTH than the data dir was made with).
    this.solidify();
    for (const block of this.blocks) {
      for (const tx of block.txs) {
        this.index.set(tx.txid, tx);
        this.taken.add(tx.txid);
      }
    }
  }

  head(): Block {
    return this.blocks[this.blocks.length - 1];
  }

  solidNumber(): number {
    return Math.max(0, this.head().number - this.solidifyDepth);
  }

  /** State including pending transactions: what /wallet/ reads see, as on a java-tron full node. */
  pendingView(): StateView {
    return new StateView(this.pending);
  }

  solidView(): StateView {
    return new StateView(this.solid);
  }

  slotOf(ms: number): number {
    return Math.floor((ms - this.genesisMs) / SLOT_MS);
  }

  /** Execution context on `view`, timed by the head block as java-tron's pending state is. */
  context(view: StateView): ExecContext {
    const nowMs = this.head().timestamp;
    return { view, nowMs, slot: this.slotOf(nowMs), contracts: this.contracts };
  }

  tx(txid: string): StoredTx | undefined {
    return this.index.get(txid);
  }

  isTaken(txid: string): boolean {
    return this.taken.has(txid);
  }

  /** The block a TAPOS reference names, if it is recent and its hash bytes match. */
  taposMatches(refBlockBytes: Buffer, refBlockHash: Buffer): boolean {
    if (refBlockBytes.length !== 2 || refBlockHash.length !== 8) return false;
    const low = refBlockBytes.readUInt16BE(0);
    const head = this.head().number;
    let number = head - ((head - low) & 0xffff);
    if (number < 0 || head - number >= TAPOS_WINDOW) return false;
    return this.blocks[number]?.id.slice(16, 32) === refBlockHash.toString('hex');
  }

  /** Validates and applies a transaction on a scratch layer over pending; throws a Refusal. */
  trial(tx: SignedTx): { layer: Layer; stored: StoredTx } {
    const layer = this.pending.child();
    const outcome = executeTx(this.context(new StateView(layer)), tx);
    const stored: StoredTx = { txid: tx.txid, raw: tx.raw, rawHex: tx.rawBytes.toString('hex'), signatures: tx.signatures, outcome };
    return { layer, stored };
  }

  /** Keeps a trial's changes: the transaction is now pending and will go into the next block. */
  commit(trial: { layer: Layer; stored: StoredTx }): void {
    trial.layer.mergeIntoParent();
    this.pendingTxs.push(trial.stored);
    this.index.set(trial.stored.txid, trial.stored);
    this.taken.add(trial.stored.txid);
  }

  /** A transaction answered as accepted but kept out of blocks (never_land fault). */
  swallow(txid: string): void {
    this.taken.add(txid);
  }

  /** A transaction answered as accepted that joins pending only when block `dueBlock` is made. */
  hold(tx: SignedTx, dueBlock: number): void {
    this.taken.add(tx.txid);
    this.held.push({ tx, dueBlock });
  }

  /** Seals pending transactions into the next block and solidifies the blocks now deep enough. */
  produceBlock(nowMs: number): ProducedBlock {
    const head = this.head();
    const number = head.number + 1;
    this.releaseHeld(number);
    const timestamp = Math.max(nowMs, head.timestamp + 1);
    const txs = this.pendingTxs;
    const block = sealBlock(number, head.id, timestamp, this.witness.address, this.witness.privateKey, txs);
    for (const tx of txs) {
      tx.blockNumber = number;
      tx.blockTimestamp = timestamp;
    }
    // Taken before solidify() may fold the layer away (depth 0); values are immutable, so a copy of the pairs is enough.
    const changes = this.pending.changes();
    this.blocks.push(block);
    this.unsolid.push(this.pending);
    this.pending = new Layer(this.pending);
    this.pendingTxs = [];
    this.solidify();
    return { block, changes };
  }

  /** Folds the layers of blocks now `solidifyDepth` deep into the solid state. */
  private solidify(): void {
    while (this.unsolid.length > this.solidifyDepth) {
      const oldest = this.unsolid.shift() as Layer;
      oldest.mergeIntoParent();
      (this.unsolid[0] ?? this.pending).parent = this.solid;
    }
  }

  private releaseHeld(number: number): void {
    const due = this.held.filter((h) => h.dueBlock <= number);
    if (due.length === 0) return;
    this.held = this.held.filter((h) => h.dueBlock > number);
    for (const { tx } of due) {
      this.taken.delete(tx.txid);
      try {
        this.commit(this.trial(tx));
      } catch (err) {
        // A delayed transaction that became invalid meanwhile is dropped, as a real node would.
        log('warn', 'delayed transaction dropped', { txid: tx.txid, reason: err instanceof Refusal ? err.message : String(err) });
      }
    }
  }

  /** Everything a snapshot needs, with pending transactions left out (they are not on chain). */
  parts(): ChainParts {
    return { genesisMs: this.genesisMs, solid: this.solid, unsolid: this.unsolid, blocks: this.blocks };
  }
}
