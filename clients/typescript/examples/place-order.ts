/**
 * The README's typed-client example, type-checked by the build; test/unit/client/readme-example.test.ts
 * keeps the README's copy identical to the lines between the markers.
 */
import { createEnergyClient } from '../src';

export async function example(): Promise<void> {
  // README begins
  const energy = createEnergyClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: { id: 'key_...', secret: '...' } });
  // client_order_id makes the order safe to retry; placeOrder adds one when you give none.
  const { order, created } = await energy.placeOrder({ resource: 'energy', amount: 65_000, tier: '1h', receiver: 'T...', client_order_id: 'invoice-42' });
  console.log(order.id, order.status, created ? 'new' : 'the same order again');
  for await (const o of energy.paginate('/v1/orders', { query: { limit: 100 } })) console.log(o.id, o.status);
  const { data: balance } = await energy.api.GET('/v1/balance');  // every operation of the document, typed
  // README ends
  console.log(balance?.available_sun);
}
