/** What the delivery roles are given, and the clients and limits they share. */
import { Rebroadcaster } from '../chain/rebroadcaster';
import type { Clock } from '../platform/clock';
import { commandBusFor, type CommandBus } from '../platform/command-bus';
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { chainClients, type ChainClients, type Runtime } from '../chain/clients';
import { deliveryStoreOn, type DeliveryStore } from './store';

export interface ChainRoleDeps {
  cfg: Config;
  pool: Pool;
  bus: Pick<CommandBus, 'append'>;
  clock: Clock;
  /** The role's reads and stores (default: on `pool`); unit tests pass a plain object. */
  store?: DeliveryStore;
}

export function storeOf(deps: ChainRoleDeps): DeliveryStore {
  return deps.store ?? deliveryStoreOn(deps.pool);
}

/** A chain role that signs and sends orders' transactions (broadcaster, scheduler). */
export interface OrderChainDeps extends ChainRoleDeps {
  /** The process's shared clients (roles.ts passes `rt.chain`); default: built from the config for this role. */
  chain?: Pick<ChainClients, 'reader' | 'writer' | 'suppliers'>;
}

/**
 * The shared reader, writer and suppliers, the role's store, and a sender of the role's own (its resend
 * times and refusals are the role's).
 */
export function orderChainOf(deps: OrderChainDeps): Pick<ChainClients, 'reader' | 'writer' | 'suppliers'> & { sender: Rebroadcaster; store: DeliveryStore } {
  const { reader, writer, suppliers } = deps.chain ?? chainClients(deps.cfg, deps.pool);
  const store = storeOf(deps);
  return { reader, writer, suppliers, store, sender: new Rebroadcaster(writer, 3_000, (txIds) => store.txOwners(txIds)) };
}

/** A bus for roles that append chain facts only (no replies awaited, so no reply subscription). */
export function appendOnlyBus(rt: Runtime): CommandBus {
  return commandBusFor(rt);
}

/**
 * Chain ms a signed transaction stays valid: no longer than the wait window (in real time), so once the
 * window is over and the head is past the expiration, an unlanded transaction can never land.
 */
export function txLifetimeMs(cfg: Pick<Config, 'ORDER_WAIT_WINDOW_MS'>, clock: Clock): number {
  return Math.min(60_000, Math.max(3_000, clock.realDelay(cfg.ORDER_WAIT_WINDOW_MS)));
}

