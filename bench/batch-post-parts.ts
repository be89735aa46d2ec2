/**
 * Parts of POST /v1/batches with 100 items, each alone (not a test), before and after wt-batchpost:
 *   1. reading the 5 KB request body: lossless-json (before) against parseJson (the engine, lossless-json only
 *      when a key is written twice or the engine refuses the text);
 *   2. the batch row's items as text: in full (before) against the stored form (null fields left out);
 *   3. PostgreSQL's CPU per INSERT of that row's items as jsonb, in full against the stored form (a temporary
 *      table in the test database; the backend's CPU from /proc, so run it on the stack's machine);
 *   4. the 202 answer: the queued Batch's view, and its JSON with a bigint replacer (before wt-post) against
 *      stringifyJson (the engine's fast path: the view writes int64 that fit as numbers, jsonInt); the
 *      `batch.create` command's wire form (its payload is the stored form as JSON).
 * Prints CPU microseconds per call of this process (1, 2, 4) and of the backend (3), taking turns.
 *   infra/env/load.sh test -- npx tsx bench/batch-post-parts.ts
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { isSafeNumber, parse } from 'lossless-json';
import { Pool } from 'pg';
import { mergeItems, queuedBatch, storedForm } from '../services/domain/batches/rules';
import { parseJson, stringifyJson } from '../services/platform/json';
import { batchJson } from '../services/domain/batches/view';
import type { Command } from '../services/domain/commands';
import { commandToWire } from '../services/platform/wire/commands';
import { newWallet } from '../test/support/identity';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** CPU microseconds per call of `f` in this process, after a warm-up. */
function cpuPerCall(f: () => unknown, n = 3_000): number {
  for (let i = 0; i < 500; i++) f();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

/** A process's CPU ms so far (utime + stime, in clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main(): Promise<void> {
  const receivers = await Promise.all(Array.from({ length: 100 }, () => newWallet().then((w) => w.address)));
  const raw = JSON.stringify({ client_batch_id: 'lat-1', defaults: { resource: 'energy', amount: 10_000, tier: '1h', max_price_sun: 1 }, items: receivers.map((receiver) => ({ receiver })) });
  const lossless = (text: string) => parse(text, null, (t: string) => (isSafeNumber(t) ? Number(t) : /^-?\d+$/.test(t) ? BigInt(t) : Number(t)));
  const items = mergeItems({ resource: 'energy', amount: 10_000, tier: '1h', maxPriceSun: 1n }, receivers.map((receiver) => ({ receiver })));
  const batch = queuedBatch({ id: 'bat_x', accountId: 'acc_x', batchKey: 'k', clientBatchId: 'k', requestHash: 'h', createdAt: Date.now() }, items);
  const full = stringifyJson(batch.items);
  const answer = batchJson(batch, new Map());
  const bigintReplacer = (_k: string, v: unknown) => (typeof v === 'bigint' ? (JSON as unknown as { rawJSON(t: string): unknown }).rawJSON(v.toString()) : v);
  const command = { type: 'batch.create', accountId: 'acc_x', batchKey: 'k', clientBatchId: 'k', requestHash: 'h', items, commandId: 'cmd_x', issuedAt: Date.now(), deadlineAt: null, replyTo: null } as Command;
  const stored = stringifyJson(batch.items.map(storedForm));
  console.log(`${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}; request ${raw.length} B, items in full ${full.length} B, stored form ${stored.length} B`);

  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  const client = await pool.connect();
  try {
    await client.query('CREATE TEMP TABLE bench_items (id text PRIMARY KEY, items jsonb NOT NULL)');
    const backend = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    let k = 0;
    const insertCpu = async (text: string, n = 300): Promise<number> => {
      const before = processCpuMs(backend);
      for (let i = 0; i < n; i++) await client.query('INSERT INTO bench_items (id, items) VALUES ($1, $2)', [`b${k++}`, text]);
      return ((processCpuMs(backend) - before) * 1000) / n;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      const parts = [
        `request: lossless-json ${cpuPerCall(() => lossless(raw)).toFixed(0)}, parseJson ${cpuPerCall(() => parseJson(raw)).toFixed(0)} us`,
        `row text: full ${cpuPerCall(() => stringifyJson(batch.items)).toFixed(0)}, stored form ${cpuPerCall(() => stringifyJson(batch.items.map(storedForm))).toFixed(0)} us`,
        `PostgreSQL insert: full ${(await insertCpu(full)).toFixed(0)}, stored form ${(await insertCpu(stored)).toFixed(0)} us`,
        `answer: view ${cpuPerCall(() => batchJson(batch, new Map())).toFixed(0)}, JSON with a replacer ${cpuPerCall(() => JSON.stringify(answer, bigintReplacer)).toFixed(0)}, `
          + `stringifyJson ${cpuPerCall(() => stringifyJson(answer)).toFixed(0)} us; command to wire ${cpuPerCall(() => commandToWire(command)).toFixed(0)} us`,
      ];
      console.log(`round ${round} (load ${os.loadavg()[0].toFixed(1)}): ${parts.join('; ')}`);
    }
  } finally {
    client.release();
    await pool.end();
  }
}

void main();
