import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { log } from '../log';
import { SignatureVerifier, type SigCheck, type SigResult } from './verify';

const UNAVAILABLE: SigResult = { error: 'signature check unavailable' };

interface Pending {
  readonly items: SigCheck[];
  readonly resolvers: ((r: SigResult) => void)[];
}

/**
 * Spreads signature checks over worker threads so the HTTP thread stays free. Checks arriving in
 * the same event-loop turn travel as one batch; batches go round-robin. Each worker caches public
 * keys, so an address always goes to the worker that learned its key first.
 */
export class SignaturePool {
  private readonly workers: Worker[] = [];
  private readonly inflight = new Map<number, { worker: number; resolve: (results: SigResult[]) => void }>();
  private readonly queues: Pending[] = [];
  private readonly inline = new SignatureVerifier();
  private nextId = 1;
  private flushScheduled = false;

  constructor(size: number, knownKeys: Buffer[]) {
    for (const key of knownKeys) this.inline.remember(key);
    const isTs = __filename.endsWith('.ts');
    const file = path.join(__dirname, isTs ? 'sig-worker.ts' : 'sig-worker.js');
    for (let i = 0; i < size; i++) {
      const worker = new Worker(file, { execArgv: isTs ? ['--require', 'tsx/cjs'] : [] });
      worker.on('message', (msg: { id: number; results: SigResult[] }) => {
        const entry = this.inflight.get(msg.id);
        this.inflight.delete(msg.id);
        entry?.resolve(msg.results);
      });
      // A crashed worker must not leave broadcasts waiting forever: they fail as unverifiable.
      worker.on('error', (err) => {
        log('error', 'signature worker failed', { error: err.message });
        for (const [id, entry] of this.inflight) {
          if (entry.worker !== i) continue;
          this.inflight.delete(id);
          entry.resolve([]);
        }
      });
      worker.unref();
      worker.postMessage({ id: 0, items: [], keys: knownKeys });
      this.workers.push(worker);
      this.queues.push({ items: [], resolvers: [] });
    }
  }

  check(item: SigCheck): Promise<SigResult> {
    if (this.workers.length === 0) return Promise.resolve(this.inline.check(item));
    const queue = this.queues[this.workerFor(item.owner)];
    return new Promise((resolve) => {
      queue.items.push(item);
      queue.resolvers.push(resolve);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private workerFor(owner: string): number {
    // Same owner, same worker: that worker holds the owner's public key.
    return parseInt(owner.slice(-6), 16) % this.workers.length;
  }

  private flush(): void {
    this.flushScheduled = false;
    this.queues.forEach((queue, index) => {
      if (queue.items.length === 0) return;
      const { items, resolvers } = { items: queue.items.splice(0), resolvers: queue.resolvers.splice(0) };
      const id = this.nextId++;
      this.inflight.set(id, { worker: index, resolve: (results) => resolvers.forEach((resolve, i) => resolve(results[i] ?? UNAVAILABLE)) });
      this.workers[index].postMessage({ id, items });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
