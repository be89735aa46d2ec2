/**
 * The processor locks an account's webhook endpoints in id order, the order the dispatcher's sender locks them
 * in (dispatcher/store.ts): a transaction holding the lower id and then asking for the higher one (as the
 * sender does) gets it, where the scan order (the higher id first, as stored here) made the two deadlock.
 */
import type { Command } from '../../../services/domain/commands';
import type { Runtime } from '../../../services/runtime';
import { WebhookEndpointState } from '../../../services/processor/webhook-endpoint-store';
import { dropWorld, eventually, newWorld, openRuntime, type World } from '../../support/world';

let world: World;
let rt: Runtime;

beforeAll(async () => {
  world = newWorld('endpointlock');
  rt = await openRuntime(world);
});

afterAll(async () => {
  await rt.log.deleteTopics(Object.values(rt.codec.topics).map((t) => t.topic)).catch(() => undefined);
  await dropWorld(world);
  await rt.close();
});

test('the processor waits for the lower id without holding the higher one', async () => {
  // Stored higher id first: a scan meets we_b before we_a.
  for (const [id, role] of [['we_b', 'primary'], ['we_a', 'backup']]) {
    await rt.pool.query(
      `INSERT INTO webhook_endpoints (id, account_id, url, role, secret_sealed, created_at, updated_at)
       VALUES ($1, 'acc_lock', 'https://example.test/hook', $2, 'sealed', now(), now())`, [id, role],
    );
  }
  const sender = await rt.pool.connect();
  const processor = await rt.pool.connect();
  try {
    await sender.query('BEGIN');
    await sender.query("SELECT 1 FROM webhook_endpoints WHERE id = 'we_a' FOR NO KEY UPDATE");
    await processor.query('BEGIN');
    const pid = (await processor.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const loading = WebhookEndpointState.load(processor, [{ type: 'webhook.endpoint.update', accountId: 'acc_lock' } as unknown as Command]);
    await eventually(async () => (await rt.pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid])).rowCount === 1, 10_000, 'the processor waiting on the lock');
    // The sender's next lock, in id order: free (the processor holds nothing yet), not a deadlock.
    await sender.query("SET LOCAL lock_timeout = '5s'");
    const next = await sender.query("SELECT id FROM webhook_endpoints WHERE id = 'we_b' FOR NO KEY UPDATE");
    expect(next.rows).toEqual([{ id: 'we_b' }]);
    await sender.query('COMMIT');
    const state = await loading;
    expect(state.ofAccount('acc_lock').map((e) => e.id).sort()).toEqual(['we_a', 'we_b']);
    await processor.query('ROLLBACK');
  } finally {
    await sender.query('ROLLBACK').catch(() => undefined);
    sender.release();
    processor.release();
  }
});
