/** Plausible `data` for the synthetic test delivery of each event type (never money: `test` is true). */
export function sampleEventData(type: string, now: number): Record<string, unknown> {
  const at = new Date(now).toISOString();
  const receiver = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
  const order = { order_id: 'ord_test', client_order_id: null, receiver, resource: 'energy', amount: 65_000 };
  switch (type) {
    case 'order.confirmed':
      return { ...order, batch_id: null, subscription_id: null, delivered_amount: 65_000, partial: false, tier: '1h', duration_seconds: 3600, delegate_hash: 'test', delegate_hashes: ['test'], delegated_at: at, expires_at: at, total_amount_sun: 1_000_000, refunded_amount_sun: 0, activation: { performed: false, hash: null, amount_sun: 0 } };
    case 'order.failed':
      return { ...order, tier: '1h', failure: { code: 5002, slug: 'delegation_failed', message: 'test' }, charged_amount_sun: 1_000_000, refunded_amount_sun: 1_000_000, refund_complete: true };
    case 'order.expired':
      return { ...order, reclaim_hash: null, expired_at: at, refunded_amount_sun: 0 };
    case 'order.reclaimed':
      return { ...order, reclaim_hash: 'test', reclaimed_at: at, refunded_amount_sun: 0 };
    case 'order.refunded':
      return { ...order, delivered_amount: 65_000, partial: false, reason: 'support_adjustment', charged_amount_sun: 1_000_000, refunded_amount_sun: 1_000_000, refund_complete: true, refunded_at: at };
    case 'batch.completed':
      return { batch_id: 'bat_test', client_batch_id: null, status: 'completed', summary: { total: 1, completed: 1, partial: 0, failed: 0, insufficient_funds: 0, cancelled: 0 }, charged_amount_sun: 1_000_000, finished_at: at };
    case 'subscription.refilled':
      return { subscription_id: 'sub_test', order_id: 'ord_test', receiver, resource: 'energy', amount: 65_000, tier: '1h', trigger_available: 1_000, threshold_amount: 30_000, total_amount_sun: 1_000_000, refills_today: 1 };
    case 'subscription.suspended':
      return { subscription_id: 'sub_test', receiver, reason: 'insufficient_funds', required_sun: 1_000_000, available_sun: 0 };
    case 'subscription.paused':
      return { subscription_id: 'sub_test', receiver, reason: 'user' };
    case 'subscription.charged':
      return { subscription_id: 'sub_test', receiver, plan: 'test', amount_sun: 1_000_000, next_billing_at: at };
    case 'balance.low':
      return { balance_sun: 1_000_000, threshold_sun: 5_000_000, estimated_orders_remaining: 1 };
    case 'deposit_address.rotated':
      return { address: receiver, retired_address: null, retired_credit_until: null, rotated_at: at };
    default:
      return { reason: 'adjustment', currency: 'TRX', amount_sun: 1_000_000, tx_hash: null, confirmations: null, balance_sun: null, reference_id: null, asset: 'TRX', usdt_amount: null, rate: null, rate_source: null, spread_bps: null, txid: null, sender: null, block_number: null };
  }
}
