/**
 * Waits until the processor has applied everything on account-commands (its stored offset equals the
 * log's end offset on every partition): the honest replacement for "sleep, then assert nothing happened".
 * Call it after the appends that might have changed something; whatever they did is then committed.
 */
import type { Runtime } from '../../services/runtime';
import { storedOffsets } from '../../services/platform/checkpointed-consumer';
import { PROCESSOR_GROUP } from '../../services/processor/processor';
import { eventually } from './world';

export async function processorCaughtUp(rt: Runtime, timeoutMs = 30_000): Promise<void> {
  const topic = rt.codec.topicName('accountCommands');
  await eventually(async () => {
    const ends = await rt.log.endOffsets(topic);
    const stored = await storedOffsets(rt.pool, PROCESSOR_GROUP, topic);
    return [...ends].every(([p, end]) => end === 0n || stored.get(p) === end);
  }, timeoutMs, 'processor lag zero');
}
