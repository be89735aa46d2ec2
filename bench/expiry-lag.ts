/**
 * Expiry lag benchmark (not a test): how long after `expires_at` orders leave `active`, under load. Run
 * against the test stack:
 *   make test-stack-up && infra/env/load.sh test -- npx tsx bench/expiry-lag.ts
 * One process holds the api, processor, relay, broadcaster, confirmer and scheduler on a clock running
 * BENCH_SCALE (10) times real time, with a devnet of its own. BENCH_ORDERS (300) `5m` energy orders are
 * placed at once from 10 accounts to 50 receivers; once every one has left `active`, prints the lag
 * (reclaimed_at - expires_at, in real ms) p50 / p99 / max, and how many expired.
 */
import { fundedCustomer, postOrder, startDeliveryStack } from '../test/support/orders';
import { percentile } from './figures';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 300);
const SCALE = Number(process.env.BENCH_SCALE ?? 10);

async function main(): Promise<void> {
  const stack = await startDeliveryStack('benchexpiry', SCALE, { ORDER_WAIT_WINDOW_MS: String(60_000 * SCALE), COMMAND_TIMEOUT_MS: '120000' });
  try {
    const customers = await Promise.all(Array.from({ length: 10 }, () => fundedCustomer(stack, 10_000_000_000n)));
    const receivers = stack.devnet.accounts.customers.map((c) => c.address);
    const replies = await Promise.all(Array.from({ length: ORDERS }, (_, i) =>
      postOrder(stack, customers[i % 10], { resource: 'energy', amount: 10_000, tier: '5m', receiver: receivers[i % receivers.length], client_order_id: `lag-${i}` })));
    const ids = replies.filter((r) => r.status === 201).map((r) => r.body.id);
    const until = Date.now() + 15 * 60_000;
    let rows: any[] = [];
    for (;;) {
      ({ rows } = await stack.rt.pool.query("SELECT status, expires_at, reclaimed_at FROM orders WHERE id = ANY($1)", [ids]));
      if (rows.every((r) => !['allocating', 'confirmed', 'active'].includes(r.status)) || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const lags = rows.filter((r) => r.status === 'expired').map((r) => (new Date(r.reclaimed_at).getTime() - new Date(r.expires_at).getTime()) / SCALE).sort((a, b) => a - b);
    const byStatus: Record<string, number> = {};
    for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    console.log(JSON.stringify({
      bench: 'expiry lag (reclaimed_at - expires_at, real ms)', orders: ORDERS, accepted: ids.length, scale: SCALE, statuses: byStatus,
      lag_ms_p50: Math.round(percentile(lags, 50)), lag_ms_p99: Math.round(percentile(lags, 99)), lag_ms_max: Math.round(lags[lags.length - 1] ?? NaN),
    }));
  } finally {
    await stack.stop();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
