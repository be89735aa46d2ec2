import fs from 'node:fs';
import path from 'node:path';
import type { Block, StoredTx } from './chain/block';
import type { ChainParts } from './chain/chain';
import { Layer } from './state/store';
import { encodeRawData, parseRawData, rawDataJson, txidOf } from './tx/transaction';

const SNAPSHOT = 'snapshot.json';
const BLOCKS = 'blocks.jsonl';

/** JSON with bigints kept exact ({"$n": "…"}). */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? { $n: v.toString() } : v));
}

export function decodeJson<T>(text: string): T {
  return JSON.parse(text, (_key, v) => (v && typeof v === 'object' && typeof v.$n === 'string' && Object.keys(v).length === 1 ? BigInt(v.$n) : v)) as T;
}

interface SnapshotFile {
  readonly seed: string;
  readonly genesisMs: number;
  readonly head: number;
  readonly solid: [string, unknown][];
  readonly unsolid: [string, unknown][][];
}

type BlockLine = Omit<Block, 'txs'> & { txs: (Omit<StoredTx, 'raw' | 'rawHex'> & { rawData: unknown })[] };

function blockToLine(block: Block): string {
  const txs = block.txs.map(({ raw, rawHex: _rawHex, ...rest }) => ({ ...rest, rawData: rawDataJson(raw) }));
  return encodeJson({ ...block, txs });
}

function blockFromLine(line: string): Block {
  const parsed = decodeJson<BlockLine>(line);
  const txs = parsed.txs.map(({ rawData, ...rest }) => {
    const raw = parseRawData(rawData);
    const rawBytes = encodeRawData(raw);
    if (txidOf(rawBytes) !== rest.txid) throw new Error(`stored transaction ${rest.txid} does not re-encode to its txid`);
    return { ...rest, raw, rawHex: rawBytes.toString('hex') };
  });
  return { ...parsed, txs };
}

function writeAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/**
 * The data dir: blocks appended to blocks.jsonl as they are made, and a snapshot of the state
 * (solid layer + one layer per unsolidified block) replaced atomically by rename. On restart the
 * chain continues from the snapshot; blocks past the snapshot's head are cut off, so state and
 * blocks always agree.
 */
export class Persistence {
  private lastSnapshotMs = 0;

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
    const lines = fs.readFileSync(path.join(this.dir, BLOCKS), 'utf8').split('\n').filter((l) => l.trim() !== '');
    const blocks: Block[] = [];
    for (const line of lines.slice(0, snap.head + 1)) blocks.push(blockFromLine(line));
    if (blocks.length !== snap.head + 1) throw new Error(`blocks.jsonl has ${blocks.length} blocks, snapshot expects ${snap.head + 1}`);
    if (lines.length > blocks.length) writeAtomic(path.join(this.dir, BLOCKS), lines.slice(0, blocks.length).join('\n') + '\n');

    const solid = new Layer(null);
    for (const [k, v] of snap.solid) solid.entries.set(k, v ?? undefined);
    const unsolid: Layer[] = [];
    for (const entries of snap.unsolid) {
      const layer = new Layer(unsolid.at(-1) ?? solid);
      for (const [k, v] of entries) layer.entries.set(k, v ?? undefined);
      unsolid.push(layer);
    }
    return { genesisMs: snap.genesisMs, solid, unsolid, blocks };
  }

  /** A fresh data dir holding `parts` (genesis). */
  init(parts: ChainParts): void {
    fs.mkdirSync(this.dir, { recursive: true });
    writeAtomic(path.join(this.dir, BLOCKS), parts.blocks.map(blockToLine).join('\n') + '\n');
    this.snapshot(parts);
  }

  appendBlock(block: Block): void {
    fs.appendFileSync(path.join(this.dir, BLOCKS), blockToLine(block) + '\n');
  }

  /** Snapshots at most once per `minIntervalMs`; pass 0 to force (shutdown). */
  maybeSnapshot(parts: ChainParts, nowMs: number, minIntervalMs: number): void {
    if (nowMs - this.lastSnapshotMs >= minIntervalMs) this.snapshot(parts);
  }

  private snapshot(parts: ChainParts): void {
    const snap: SnapshotFile = {
      seed: this.seed,
      genesisMs: parts.genesisMs,
      head: parts.blocks.length - 1,
      solid: [...parts.solid.entries],
      unsolid: parts.unsolid.map((layer) => [...layer.entries]),
    };
    writeAtomic(path.join(this.dir, SNAPSHOT), encodeJson(snap));
    this.lastSnapshotMs = Date.now();
  }

  wipe(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
