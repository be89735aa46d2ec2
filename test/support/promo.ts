/**
 * Promo test kit: a devnet of the test's own (TRC-10 and /admin/promo-token), a world with the processor,
 * relay and the given promo roles, the API on an ephemeral port, and an injected clock (real time plus
 * an offset the test moves).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../services/api/app';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { startRoles, type Role, type Stoppable } from '../../services/roles';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { call, OPEN_BUDGETS, sign, type Wallet } from './identity';
import { dropWorld, eventually, newWorld, openBus, openRuntime, type World } from './world';

export interface PromoStack {
  devnet: Devnet;
  world: World;
  rt: Runtime;
  bus: CommandBus;
  base: string;
  /** Moves the injected clock to real time + `ms`. */
  setOffset(ms: number): void;
  offset(): number;
  startRoles(roles: Role[]): Promise<Stoppable[]>;
  stop(): Promise<void>;
}

export async function startPromoStack(label: string, roles: Role[], overrides: Record<string, string> = {}): Promise<PromoStack> {
  const devnet = await startDevnet();
  const world = newWorld(label, { ...OPEN_BUDGETS, TRON_FULL_HOST: devnet.url, PROMO_CACHE_MS: '0', CHAIN_POLL_MS: '200', ...overrides });
  const rt = await openRuntime(world);
  let offsetMs = 0;
  Object.assign(rt, { clock: { now: () => Date.now() + offsetMs, realDelay: (ms: number) => ms } });
  const bus = await openBus(rt);
  const running: Stoppable[] = await startRoles(rt, ['processor', 'relay', ...roles]);
  const server: Server = await new Promise((resolve) => {
    const s = createApp({ rt, bus }).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    devnet, world, rt, bus,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setOffset: (ms) => (offsetMs = ms),
    offset: () => offsetMs,
    startRoles: async (more) => {
      const started = await startRoles(rt, more);
      running.push(...started);
      return started;
    },
    stop: async () => {
      await new Promise((r) => server.close(r));
      await Promise.allSettled(running.map((r) => r.stop()));
      await bus.stop();
      await dropWorld(world, rt);
      await rt.close();
      await devnet.stop();
    },
  };
}

/** Issues a promo token to `holders` and waits until it is solidified (ops promo set reads it there). */
export async function dropToken(stack: PromoStack, holders: Wallet[], amount = 1): Promise<{ token_id: string; drop_address: string }> {
  const drop = await stack.devnet.post('/admin/promo-token', { name: 'PROMO', holders: holders.map((h) => h.address), amount });
  await eventually(async () => ((await fetch(`${stack.devnet.url}/walletsolidity/getassetissuebyid?value=${drop.token_id}`).then((r) => r.json())) as any).id, 20_000, 'token solidified');
  return drop;
}

export const redemptionOf = async (stack: PromoStack, address: string) => (await call(stack.base, 'GET', `/v1/promo/redemptions/${address}`)).body;

/** Energy limit of an address as the chain's head state says. */
export async function energyLimit(stack: PromoStack, address: string): Promise<number> {
  const r: any = await fetch(`${stack.devnet.url}/wallet/getaccountresource`, { method: 'POST', body: JSON.stringify({ address, visible: true }) }).then((x) => x.json());
  return Number(r.EnergyLimit ?? 0);
}

/** A signed promo_redeem challenge, ready for POST /v1/promo/redeem. */
export async function signedPromoClaim(stack: PromoStack, w: Wallet) {
  const c = await call(stack.base, 'POST', '/v1/promo/redeem/challenge', { body: { address: w.address } });
  if (c.status !== 201) throw new Error(`challenge ${c.status} ${c.text}`);
  return { address: w.address, nonce: c.body.nonce, signature: sign(c.body.message, w), purpose: c.body.purpose as string };
}
