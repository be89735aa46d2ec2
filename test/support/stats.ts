/**
 * Stats test kit: commands applied at chosen times (appended with no deadline, as chain facts are, so
 * an order can be created days ago), the projection caught up with order-events, and the stats read.
 */
import type { Command } from '../../services/domain/commands';
import type { NewCommand } from '../../services/platform/command-bus';
import { storedOffsets } from '../../services/platform/checkpointed-consumer';
import { STATS_GROUP } from '../../services/stats/consumer';
import { eventually } from './world';
import { call, signedHeaders, type IdentityStack, type Reply } from './identity';
import { unpublishedCount } from '../../services/relay/relay';

/** Appends `body` stamped at `at` and waits for its result; returns the result body. */
export async function applyAt(stack: IdentityStack, at: number, body: NewCommand): Promise<any> {
  const command = { ...stack.bus.stamp(body, false), issuedAt: at } as Command;
  await stack.bus.append([command]);
  return eventually(async () => {
    const { rows } = await stack.rt.pool.query('SELECT outcome, body, error FROM command_results WHERE command_id = $1', [command.commandId]);
    if (rows.length === 0 || rows[0].outcome === 'pending') return undefined;
    if (rows[0].outcome !== 'applied') throw new Error(`${body.type} ${rows[0].outcome}: ${JSON.stringify(rows[0].error)}`);
    return rows[0].body;
  }, 30_000, `${body.type} applied`);
}

/** Every order event published and projected: the relay's outbox is empty and the stored offsets are at the end. */
export async function statsCaughtUp(stack: IdentityStack, timeoutMs = 30_000): Promise<void> {
  const topic = stack.rt.codec.topicName('orderEvents');
  await eventually(async () => {
    if ((await unpublishedCount(stack.rt.pool, 'order-events')) > 0) return false;
    const ends = await stack.rt.log.endOffsets(topic);
    const stored = await storedOffsets(stack.rt.pool, STATS_GROUP, topic);
    return [...ends].every(([p, end]) => end === 0n || stored.get(p) === end);
  }, timeoutMs, 'the stats projection to catch up with order-events');
}

/** A signed GET (a GET signature may repeat: polling needs no distinct timestamps). */
export async function signedGet(base: string, key: { id: string; secret: string }, path: string): Promise<Reply> {
  return call(base, 'GET', path, { headers: signedHeaders(key, 'GET', path) });
}
