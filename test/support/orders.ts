/**
 * Orders test kit: a devnet of the test's own (fast blocks) and an identity stack whose TRON_FULL_HOST
 * points at it, plus funding through a support adjustment and a signed POST /v1/orders.
 */
import { replayAndVerify } from '../../services/ops/replay';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { signedCall, signUp, startIdentityStack, type Customer, type IdentityStack, type Reply } from './identity';

export interface OrderStack extends IdentityStack {
  devnet: Devnet;
}

export async function startOrderStack(label: string, overrides: Record<string, string> = {}, devnetEnv: Record<string, string> = {}): Promise<OrderStack> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300', ...devnetEnv });
  const stack = await startIdentityStack(label, { TRON_FULL_HOST: devnet.url, ...overrides });
  return {
    ...stack,
    devnet,
    stop: async () => {
      // The world's log must rebuild its database exactly (orders, idempotency records, journals).
      const report = await replayAndVerify(stack.rt);
      const differing = report.tables.filter((t) => t.differences.length > 0);
      await stack.stop();
      if (differing.length > 0) {
        await devnet.stop();
        throw new Error(`replay differs from the database: ${JSON.stringify(differing).slice(0, 2000)}`);
      }
      await devnet.stop();
    },
  };
}

/** A signed-up customer with `sun` credited by a support adjustment (0: unfunded). */
export async function fundedCustomer(stack: IdentityStack, sun: bigint): Promise<Customer> {
  const customer = await signUp(stack.base);
  if (sun > 0n) {
    const result = await stack.bus.submit({ type: 'balance.adjust', accountId: customer.accountId, amountSun: sun, memo: 'test funding' });
    if (result.outcome !== 'applied') throw new Error(`funding failed: ${JSON.stringify(result)}`);
  }
  return customer;
}

export function postOrder(stack: IdentityStack, customer: Customer, body: Record<string, unknown>, idempotencyKey?: string): Promise<Reply> {
  return signedCall(stack.base, customer.key, 'POST', '/v1/orders', body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
}
