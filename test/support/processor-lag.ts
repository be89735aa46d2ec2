/**
 * Waits until the processor has applied everything on account-commands (its stored offset equals the
 * log's end offset on every partition): the honest replacement for "sleep, then assert nothing happened".
 * Call it after the appends that might have changed something; whatever they did is then committed.
 */
import type { Runtime } from '../../services/platform/runtime';
import { PROCESSOR_GROUP } from '../../services/processor/processor';
import { eventually } from './world';

export async function processorCaughtUp(rt: Runtime, timeoutMs = 30_000): Promise<void> {
  const topic = rt.codec.topicName('accountCommands');
  await eventually(async () => {
    const ends = await rt.log.endOffsets(topic);
    const { rows } = await rt.pool.query('SELECT partition, next_offset FROM consumer_offsets WHERE consumer_group = $1 AND topic = $2', [PROCESSOR_GROUP, topic]);
    const stored = new Map(rows.map((r) => [r.partition as number, r.next_offset as bigint]));
    return [...ends].every(([p, end]) => end === 0n || stored.get(p) === end);
  }, timeoutMs, 'processor lag zero');
}
