/**
 * `./bin/ops rebuild-stats`: empties the projection and its stored offsets, then projects order-events
 * from the beginning up to the end offsets read at the start, with progress. It uses the live role's own
 * slice transaction (applyIsolated over statsSpec), so a running projection role and the rebuild may overlap: whichever
 * projects a record first moves the stored offset, and the other skips it.
 */
import { progressText } from '../platform/progress';
import { inTransaction } from '../platform/db/pool';
import type { Runtime } from '../chain/clients';
import { applyIsolated, decodeAll } from '../platform/checkpointed-consumer';
import { STATS_GROUP, statsSpec } from './consumer';
import { statsTables } from './store';

export interface RebuildReport {
  events: number;
  skipped: number;
  ms: number;
}

export async function rebuildStats(rt: Runtime, progress: (line: string) => void = () => undefined): Promise<RebuildReport> {
  const started = Date.now();
  const spec = statsSpec(rt.codec);
  const topic = spec.topic;
  await inTransaction(rt.pool, async (client) => {
    await client.query(`TRUNCATE ${statsTables.join(', ')}`);
    await client.query('DELETE FROM consumer_offsets WHERE consumer_group = $1 AND topic = $2', [STATS_GROUP, topic]);
  });
  const ends = await rt.log.endOffsets(topic);
  const total = [...ends.values()].reduce((a, b) => a + b, 0n);
  progress(`projection emptied; rebuilding from ${total} records on ${topic}`);
  let events = 0;
  let skipped = 0;
  let lastReport = 0;
  await rt.log.scan(topic, ends, async (batch) => {
    const decoded = await decodeAll(spec.decode, batch.records);
    const outcome = await applyIsolated(rt.pool, spec, batch.partition, decoded);
    const last = batch.records[batch.records.length - 1].offset;
    if ('seekTo' in outcome) {
      // The live role got there first; anything else is a gap in the log.
      if (outcome.seekTo <= last) throw new Error(`rebuild out of order on partition ${batch.partition}: stored ${outcome.seekTo}`);
      skipped += batch.records.length;
    } else {
      events += outcome.results.reduce((a, b) => a + b, 0);
    }
    if (Date.now() - lastReport > 1_000 || BigInt(events + skipped) === total) {
      lastReport = Date.now();
      progress(progressText({ label: 'projected', unit: 'records', done: events + skipped, total: Number(total), elapsedMs: Date.now() - started }));
    }
  });
  // The tables were refilled in bulk: fresh planner statistics before the first stats request plans on them.
  await rt.pool.query(`ANALYZE ${statsTables.join(', ')}`);
  return { events, skipped, ms: Date.now() - started };
}
