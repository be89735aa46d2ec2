/**
 * The browser suite's stack: a devnet of its own (fast blocks), a world with the processor, relay, deposit
 * watcher, the order chain roles (broadcaster, confirmer, scheduler), the batch executor (one receiver at a
 * time, so a batch can be cancelled while it runs) and the stats projection, and the API (with the
 * dashboard at `/`) on an ephemeral port, trusting the test CA for webhook test deliveries to a loopback receiver.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../../services/api/app';
import type { CommandBus } from '../../../services/platform/command-bus';
import type { Runtime } from '../../../services/runtime';
import { startRoles, type Stoppable } from '../../../services/roles';
import { startDevnet, type Devnet } from '../../devnet/start-devnet';
import { testCa } from '../../support/https-receiver';
import { OPEN_BUDGETS } from '../../support/identity';
import { closeChainWorld } from '../../support/deposits';
import { newWorld, openBus, openRuntime, type World } from '../../support/world';

export interface BrowserStack {
  devnet: Devnet;
  world: World;
  rt: Runtime;
  bus: CommandBus;
  base: string;
  stop(): Promise<void>;
}

export async function startBrowserStack(label: string): Promise<BrowserStack> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  const world = newWorld(label, {
    ...OPEN_BUDGETS, TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.accounts.usdt_contract, DEX_POOL_ADDRESS: devnet.accounts.dex_pool,
    DEPOSIT_CONFIRMATIONS: '3', DEPOSIT_POLL_MS: '100', USDT_RATE_SOURCE: 'fixed_env', USDT_FIXED_RATE: '3.5',
    CHAIN_POLL_MS: '100', ORDER_WAIT_WINDOW_MS: '10000', COMMAND_TIMEOUT_MS: '10000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    BATCH_EXECUTOR_CONCURRENCY: '1',
  });
  const rt = await openRuntime(world);
  const bus = await openBus(rt);
  const roles: Stoppable[] = await startRoles(rt, ['processor', 'relay', 'deposit-watcher', 'broadcaster', 'confirmer', 'scheduler', 'batch-executor', 'stats']);
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus, webhooks: { ca: testCa().ca } }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    devnet, world, rt, bus, base,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await Promise.allSettled(roles.map((r) => r.stop()));
      await closeChainWorld({ world, rt, bus, devnet });
    },
  };
}
