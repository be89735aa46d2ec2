/** In-memory state for pure order-handler tests: an OrderView over a map, and an account with a balance. */
import { emptyIdentity, emptyTotals, type Account } from '../../services/domain/account';
import type { IdempotencyRecord, Order } from '../../services/domain/orders/rules';
import type { OrderView } from '../../services/domain/outcome';

export class OrderMemory implements OrderView {
  orders = new Map<string, Order>();
  byId = (id: string) => this.orders.get(id);
  byClientId = () => undefined;
  byQuote = () => undefined;
  idempotency = (): IdempotencyRecord | undefined => undefined;
}

export function fundedAccount(balanceSun = 100_000_000n): Account {
  return {
    id: 'acc_1', brand: 'energy', network: 'nile', ownerAddress: null, displayName: null, status: 'active', balanceSun, balanceUsdt: 0n,
    reservedSun: 0n, totals: emptyTotals(), ...emptyIdentity(), createdAt: 0, updatedAt: 0,
  };
}
