import fs from 'node:fs';
import path from 'node:path';
import type { Block, StoredTx } from './chain/block';
import type { ChainParts, ProducedBlock } from './chain/chain';
import { stringify } from './json-text';
import { Layer, type StateChanges } from './state/store';
import { encodeRawData, parseRawData, rawDataJson, txidOf } from './tx/transaction';

const SNAPSHOT = 'snapshot.json';
const BLOCKS = 'blocks.jsonl';

/** JSON with bigints kept exact ({"$n": "…"}). */
export function encodeJson(value: unknown): string {
  return stringify(value, (v) => `{"$n":"${v}"}`);
}

export function decodeJson<T>(text: string): T {
  return JSON.parse(text, (_key, v) => (v && typeof v === 'object' && typeof v.$n === 'string' && Object.keys(v).length === 1 ? BigInt(v.$n) : v)) as T;
}

interface SnapshotFile {
  readonly seed: string;
  readonly genesisMs: number;
  readonly head: number;
  readonly solid: StateChanges;
  readonly unsolid: StateChanges[];
}

/** A blocks.jsonl line: the block, and (since the snapshot stopped being written every second) its state changes. */
type BlockLine = Omit<Block, 'txs'> & { txs: (Omit<StoredTx, 'raw' | 'rawHex'> & { rawData: unknown })[]; changes?: StateChanges };

function blockToLine({ block, changes }: ProducedBlock | { block: Block; changes?: undefined }): string {
  const txs = block.txs.map(({ raw, rawHex: _rawHex, ...rest }) => ({ ...rest, rawData: rawDataJson(raw) }));
  return encodeJson(changes ? { ...block, txs, changes } : { ...block, txs });
}

function blockFromLine(line: string): { block: Block; changes?: StateChanges } {
  const { changes, ...parsed } = decodeJson<BlockLine>(line);
  const txs = parsed.txs.map(({ rawData, ...rest }) => {
    const raw = parseRawData(rawData);
    const rawBytes = encodeRawData(raw);
    if (txidOf(rawBytes) !== rest.txid) throw new Error(`stored transaction ${rest.txid} does not re-encode to its txid`);
    return { ...rest, raw, rawHex: rawBytes.toString('hex') };
  });
  return { block: { ...parsed, txs }, changes };
}

/**
 * A block after the snapshot, if the line holds one that continues `previous` with its changes; undefined for
 * what a crash can leave at the end of the file (a line cut short, or one written before changes were recorded).
 */
function laterBlock(line: string, previous: Block): { block: Block; changes: StateChanges } | undefined {
  let read;
  try {
    read = blockFromLine(line);
  } catch {
    return undefined;
  }
  const { block, changes } = read;
  if (!changes || block.number !== previous.number + 1 || block.parentHash !== previous.id) return undefined;
  return { block, changes };
}

function layerOf(parent: Layer | null, changes: StateChanges): Layer {
  const layer = new Layer(parent);
  // JSON has no undefined: a deleted key is stored as null.
  for (const [k, v] of changes) layer.entries.set(k, v ?? undefined);
  return layer;
}

function writeAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/**
 * The data dir: each block appended to blocks.jsonl as it is made, with the state changes it made, in one
 * line; and now and then a snapshot of the whole state (solid layer + one layer per unsolidified block)
 * replaced atomically by rename. Writing the whole state every second cost a quarter of the devnet's main
 * thread once a bench had made thousands of accounts; a block's changes are proportional to its
 * transactions. On restart the chain continues from the snapshot plus the changes of the blocks after it;
 * a last line cut short by a crash (or anything after the first line that does not continue the chain) is
 * cut off, so state and blocks always agree.
 */
export class Persistence {
  private snapshotHead = 0;

  constructor(
    readonly dir: string,
    private readonly seed: string,
  ) {}

  load(): ChainParts | undefined {
    const file = path.join(this.dir, SNAPSHOT);
    if (!fs.existsSync(file)) return undefined;
    const snap = decodeJson<SnapshotFile>(fs.readFileSync(file, 'utf8'));
    if (snap.seed !== this.seed) {
      throw new Error(`data dir ${this.dir} holds a chain made from seed '${snap.seed}', not '${this.seed}': reset it or use another DEVNET_DATA_DIR`);
    }
    const text = fs.readFileSync(path.join(this.dir, BLOCKS), 'utf8');
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    const blocks: Block[] = [];
    for (const line of lines.slice(0, snap.head + 1)) blocks.push(blockFromLine(line).block);
    if (blocks.length !== snap.head + 1) throw new Error(`blocks.jsonl has ${blocks.length} blocks, snapshot expects ${snap.head + 1}`);

    const solid = layerOf(null, snap.solid);
    const unsolid: Layer[] = [];
    for (const entries of snap.unsolid) unsolid.push(layerOf(unsolid.at(-1) ?? solid, entries));
    // Blocks after the snapshot: their changes become layers on top; the chain folds the deep ones into solid.
    for (const line of lines.slice(blocks.length)) {
      const later = laterBlock(line, blocks[blocks.length - 1]);
      if (!later) break;
      blocks.push(later.block);
      unsolid.push(layerOf(unsolid.at(-1) ?? solid, later.changes));
    }
    const kept = lines.slice(0, blocks.length);
    if (kept.length !== lines.length || !text.endsWith('\n')) writeAtomic(path.join(this.dir, BLOCKS), kept.join('\n') + '\n');
    this.snapshotHead = snap.head;
    return { genesisMs: snap.genesisMs, solid, unsolid, blocks };
  }

  /** A fresh data dir holding `parts` (genesis). */
  init(parts: ChainParts): void {
    fs.mkdirSync(this.dir, { recursive: true });
    writeAtomic(path.join(this.dir, BLOCKS), parts.blocks.map((block) => blockToLine({ block })).join('\n') + '\n');
    this.snapshot(parts);
  }

  /** One write per block (a crash cuts at most this line short); the block's changes go with it. */
  appendBlock(produced: ProducedBlock): void {
    fs.appendFileSync(path.join(this.dir, BLOCKS), blockToLine(produced) + '\n');
  }

  /** Snapshots once `everyBlocks` blocks were made since the last one; pass 0 to force (shutdown). */
  maybeSnapshot(parts: ChainParts, everyBlocks: number): void {
    const head = parts.blocks.length - 1;
    if (head - this.snapshotHead >= everyBlocks && head !== this.snapshotHead) this.snapshot(parts);
  }

  private snapshot(parts: ChainParts): void {
    const snap: SnapshotFile = {
      seed: this.seed,
      genesisMs: parts.genesisMs,
      head: parts.blocks.length - 1,
      solid: parts.solid.changes(),
      unsolid: parts.unsolid.map((layer) => layer.changes()),
    };
    writeAtomic(path.join(this.dir, SNAPSHOT), encodeJson(snap));
    this.snapshotHead = snap.head;
  }

  wipe(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
