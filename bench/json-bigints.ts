/**
 * The cost of writing the domain's JSON (values holding bigints: an order event, an order's allocations)
 * with stringifyJson (the engine's fast path tried first, a throw at the first bigint, then the replacer)
 * against stringifyBigintJson (the replacer first), and a bigint-free answer both ways. Medians of 5 rounds.
 *   npx tsx bench/json-bigints.ts
 */
import { stringifyBigintJson, stringifyJson } from '../services/platform/json';

const txId = '63fadb8dc3853604e880a4466703f71f8f93530b0de125ec14b081c32fea943e';
const orderEvent = {
  type: 'order.confirmed', id: 'evt_0123456789abcdef01234567', account_id: 'acc_0123456789abcdef', created_at: new Date(0).toISOString(),
  data: {
    order_id: 'ord_d9eaba9de63c70fab9247995', resource: 'energy', amount: 65_000, tier: '1h', receiver: 'TPeM1xX6XveyificeQ5eoBTyHmzQ7EMvpt',
    total_amount_sun: 1_234_567n, pay_amount_sun: 1_234_567n, activate_amount_sun: 0n, refunded_amount_sun: 0n, status: 'active', delegate_hash: txId,
    allocations: [{ kind: 'delegate', from: 'TSHyffTe1QX5w5xiuuq9eWRgj8f5CgccjX', amount: 65_000, sun: 446_000_000n, txId }],
  },
};
const allocations = [{ kind: 'delegate', from: 'TSHyffTe1QX5w5xiuuq9eWRgj8f5CgccjX', amount: 65_000, sun: 446_000_000n, txId, signedTx: 'x'.repeat(1_200) }];
const plainAnswer = { items: Array.from({ length: 100 }, (_, i) => ({ id: `ord_${i}`, receiver: 'TPeM1xX6XveyificeQ5eoBTyHmzQ7EMvpt', status: 'active', total_amount_sun: '1234567', hash: txId })) };

function microseconds(write: () => string, n: number): number {
  for (let i = 0; i < n / 10; i++) write();
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) write();
  return Number(process.hrtime.bigint() - started) / n / 1_000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const [name, value, n] of [['order event', orderEvent, 100_000], ['allocations', allocations, 100_000], ['100-item answer, no bigint', plainAnswer, 10_000]] as const) {
  const fastFirst: number[] = [];
  const replacerFirst: number[] = [];
  for (let round = 0; round < 5; round++) {
    fastFirst.push(microseconds(() => stringifyJson(value), n));
    replacerFirst.push(microseconds(() => stringifyBigintJson(value), n));
  }
  const a = median(fastFirst);
  const b = median(replacerFirst);
  console.log(`${name}: stringifyJson ${a.toFixed(2)} us, stringifyBigintJson ${b.toFixed(2)} us, ratio ${(a / b).toFixed(2)}`);
}
