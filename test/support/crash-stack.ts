/**
 * The stack of a SIGKILL test: its own fast devnet, a world, some roles in this process (and the API), and
 * the roles under test as child processes that the test kills and restarts. Teardown kills the children,
 * then checks the world (replay) and stops everything.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../services/api/app';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { startRoles, type Role, type Stoppable } from '../../services/roles';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { startService, type ServiceProcess } from './service-process';
import { dropWorld, newWorld, openBus, openRuntime, type World } from './world';

export interface CrashStack {
  devnet: Devnet;
  world: World;
  rt: Runtime;
  bus: CommandBus;
  base: string;
  /** SIGKILLs the child running `role` and starts it again. */
  restart(role: string): Promise<void>;
  /** Whether the child running `role` is gone (killed itself at a crash point). */
  exited(role: string): boolean;
  stop(): Promise<void>;
}

export async function startCrashStack(
  label: string, options: { inProcess: Role[]; children: string[]; childEnv?: (role: string) => Record<string, string> },
): Promise<CrashStack> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '300' });
  const world = newWorld(label, {
    TRON_FULL_HOST: devnet.url, CHAIN_POLL_MS: '200', COMMAND_TIMEOUT_MS: '15000', ORDER_WAIT_WINDOW_MS: '90000',
    BUDGET_READS_PER_SEC: '100000', BUDGET_WRITES_PER_SEC: '100000',
  });
  const rt = await openRuntime(world);
  const bus = await openBus(rt);
  const roles: Stoppable[] = await startRoles(rt, options.inProcess);
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const children = new Map<string, ServiceProcess>();
  const start = async (role: string) => {
    const child = startService(world, role, options.childEnv?.(role) ?? {});
    children.set(role, child);
    await child.ready;
  };
  // All at once: independent processes, and on a loaded machine each start is seconds of CPU (serially they added up).
  await Promise.all(options.children.map(start));
  return {
    devnet, world, rt, bus,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    restart: async (role) => {
      await children.get(role)!.kill('SIGKILL');
      await start(role);
    },
    exited: (role) => {
      const child = children.get(role)!.child;
      return child.exitCode !== null || child.signalCode !== null;
    },
    stop: async () => {
      await Promise.allSettled([...children.values()].map((c) => c.kill('SIGKILL')));
      await new Promise((r) => server.close(r));
      await Promise.allSettled(roles.map((r) => r.stop()));
      await bus.stop();
      try {
        await dropWorld(world, rt);
      } finally {
        await rt.close();
        await devnet.stop();
      }
    },
  };
}
