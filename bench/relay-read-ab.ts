/**
 * The outbox relay's PostgreSQL work per published row, before and after a change, side by side (not a test).
 *
 *   BENCH_BASE=/work/wt/<name>-base infra/env/load.sh test -- npx tsx bench/relay-read-ab.ts
 *
 * Two world databases, one per tree. In each, a writer connection inserts BENCH_ROWS (40) outbox rows of about
 * 1 KB (what a slice of 20 orders writes), then that tree's publishOnce runs until it finds nothing, as the relay's
 * loop does (the last call, the empty one, is the poll that follows a burst). Kafka and the codec are stubs: the
 * figure is the CPU of the relay's own PostgreSQL backend (/proc/<pid>/stat) per row published, and of this
 * process. The trees take turns step by step; published rows stay (dead index entries pile up as they do live
 * until VACUUM). BENCH_STEPS (150) steps per tree per round, BENCH_ROUNDS (5) rounds; the tree going first alternates.
 * A tree's relay connection is set up as its startRelay sets up its own (BENCH_B_SETUP / BENCH_A_SETUP, SQL run
 * once on that connection; none by default). Both worlds are built from this tree's migrations, so the base must
 * read the same schema: a tree from before the relay's cursors (migrations/1765500000001_outbox-cursors.sql) would
 * read without the index it relied on; the rows are written with a partition (0 to 5) for the cursors.
 */
import os from 'node:os';
import { join, resolve } from 'node:path';
import type { PoolClient } from '../services/platform/db/pool';
import { dropWorld, newWorld, openRuntime } from '../test/support/world';
import { median } from './figures';
import { cpuAround } from './proc-cpu';

const BASE = process.env.BENCH_BASE;
const ROWS = Number(process.env.BENCH_ROWS ?? 40);
const STEPS = Number(process.env.BENCH_STEPS ?? 150);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SETUP = { a: process.env.BENCH_A_SETUP ?? '', b: process.env.BENCH_B_SETUP ?? '' };

interface Tree {
  name: 'a' | 'b';
  relay: PoolClient;
  writer: PoolClient;
  backend: number;
  publishOnce: (deps: unknown, client?: PoolClient) => Promise<number>;
  deps: unknown;
  next: number;
}

const encoded = async () => ({ key: null, value: Buffer.from('x') });
const stubCodec = { encodeEvent: encoded, encodeOrderEvent: encoded, encodeCommand: encoded, topicName: (t: string) => t };
const stubLog = { send: async () => undefined, sendTopics: async () => undefined };

async function tree(root: string, name: 'a' | 'b'): Promise<{ t: Tree; close: () => Promise<void> }> {
  const world = newWorld(`relayab${name}`, { LOG_LEVEL: 'error' });
  const rt = await openRuntime(world);
  const relay = await rt.pool.connect();
  const writer = await rt.pool.connect();
  if (SETUP[name]) await relay.query(SETUP[name]);
  const backend = (await relay.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  const mod = await import(join(root, 'services/relay/relay.ts'));
  // The pool the base tree's publishOnce reads through is the relay connection itself (one backend to measure).
  const deps = { log: stubLog, codec: stubCodec, pool: { query: (...args: unknown[]) => (relay.query as any)(...args) } };
  const t: Tree = { name, relay, writer, backend, publishOnce: mod.publishOnce, deps, next: 0 };
  return {
    t,
    close: async () => {
      relay.release(true);
      writer.release();
      await rt.close();
      await dropWorld(world, undefined);
    },
  };
}

async function write(t: Tree): Promise<void> {
  const ids = Array.from({ length: ROWS }, () => `evt_${t.name}${(t.next++).toString(16).padStart(12, '0')}`);
  const pad = 'p'.repeat(900);
  await t.writer.query(
    `INSERT INTO outbox (destination, message_id, account_id, payload, created_at, source_partition)
     SELECT CASE WHEN i % 2 = 0 THEN 'order-events' ELSE 'account-events' END, m, 'acc_bench',
            jsonb_build_object('type', 'order.status_changed', 'eventId', m, 'pad', $2::text), now(), i % 6
     FROM unnest($1::text[]) WITH ORDINALITY AS u(m, i)`,
    [ids, pad],
  );
}

/** The relay after a burst: publish until a call finds nothing; returns the rows published. */
async function publish(t: Tree): Promise<number> {
  let total = 0;
  for (;;) {
    const n = t.name === 'b' ? await t.publishOnce(t.deps, t.relay) : await t.publishOnce(t.deps);
    total += n;
    if (n === 0) return total;
  }
}

async function main(): Promise<void> {
  if (!BASE) throw new Error('BENCH_BASE=<checkout of the tree before the change> is required');
  const opened = [await tree(resolve(BASE), 'a'), await tree(resolve(__dirname, '..'), 'b')];
  const trees = opened.map((o) => o.t);
  try {
    for (const t of trees) for (let i = 0; i < 10; i++) { await write(t); await publish(t); }
    console.log(`relay read A/B: ${ROWS} rows per step, ${STEPS} steps per tree per round, A = ${BASE} (${SETUP.a || 'no setup'}), B = ${resolve(__dirname, '..')} (${SETUP.b || 'no setup'})`);
    const per: Record<string, { pg: number[]; node: number[] }> = { a: { pg: [], node: [] }, b: { pg: [], node: [] } };
    for (let round = 0; round < ROUNDS; round++) {
      const spent = trees.map(() => ({ pg: 0, node: 0, rows: 0 }));
      for (let s = 0; s < STEPS; s++) {
        for (let k = 0; k < trees.length; k++) {
          const i = (s + round + k) % trees.length;
          const t = trees[i];
          await write(t);
          const cost = await cpuAround(t.backend, () => publish(t));
          spent[i].rows += cost.result;
          spent[i].node += cost.nodeMs;
          spent[i].pg += cost.pgMs;
        }
      }
      for (const [i, t] of trees.entries()) {
        per[t.name].pg.push(spent[i].pg / spent[i].rows);
        per[t.name].node.push(spent[i].node / spent[i].rows);
      }
      const f = (n: number) => n.toFixed(4);
      console.log(`round ${round + 1} (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; rows in each outbox ${(trees[0].next)}): ms per row published, `
        + `PostgreSQL backend A ${f(per.a.pg[round])} / B ${f(per.b.pg[round])}, this process A ${f(per.a.node[round])} / B ${f(per.b.node[round])}`);
    }
    const m = median;
    console.log(`medians: PostgreSQL backend ms per row A ${m(per.a.pg).toFixed(4)} / B ${m(per.b.pg).toFixed(4)} (B/A ${(m(per.b.pg) / m(per.a.pg)).toFixed(2)}), `
      + `this process A ${m(per.a.node).toFixed(4)} / B ${m(per.b.node).toFixed(4)} (B/A ${(m(per.b.node) / m(per.a.node)).toFixed(2)})`);
  } finally {
    for (const o of opened) await o.close();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
