/**
 * Deposits test kit: a devnet of its own (blocks only when the test asks), a world pointed at it with the
 * processor, relay, API and the deposit watcher, and customers who send TRX and USDT with TronWeb.
 */
import { TronWeb } from 'tronweb';
import { parseConfig } from '../../services/platform/config';
import { DepositWatcher, WATCHER_NAME } from '../../services/deposits/watcher';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { OPEN_BUDGETS, call, signUp, signedCall, signedHeaders, startApiStack, type Customer } from './identity';
import { assertLedgerInvariants } from './ledger-invariants';
import { readTopic } from './topic-reader';
import { dropWorld, eventually, type World } from './world';
import { processorCaughtUp } from './processor-lag';

export const CONFIRMATIONS = 3;

export interface DepositStack {
  devnet: Devnet;
  world: World;
  rt: Runtime;
  bus: CommandBus;
  base: string;
  watcher: DepositWatcher | undefined;
  startWatcher(env?: Record<string, string>): Promise<void>;
  stopWatcher(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDepositStack(label: string, overrides: Record<string, string> = {}): Promise<DepositStack> {
  const devnet = await startDevnet({ DEVNET_BLOCK_MS: '3600000' });
  const { world, rt, bus, base, stopServing } = await startApiStack(label, {
    TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.accounts.usdt_contract, DEX_POOL_ADDRESS: devnet.accounts.dex_pool,
    DEPOSIT_CONFIRMATIONS: String(CONFIRMATIONS), DEPOSIT_POLL_MS: '100', USDT_RATE_SOURCE: 'fixed_env', USDT_FIXED_RATE: '3.5',
    ...OPEN_BUDGETS,
    ...overrides,
  });
  const stack: DepositStack = {
    devnet, world, rt, bus, base, watcher: undefined,
    async startWatcher(env = {}) {
      const cfg = { ...rt.cfg, ...newWorldCfg(world, env) };
      stack.watcher = new DepositWatcher({ cfg, pool: rt.pool, bus, clock: rt.clock });
      stack.watcher.start();
    },
    async stopWatcher() {
      await stack.watcher?.stop();
      stack.watcher = undefined;
    },
    async stop() {
      await stack.stopWatcher();
      await stopServing();
      await closeChainWorld(stack);
    },
  };
  return stack;
}

/** After the servers and roles stopped: ledger invariants, replay check and drop of the world, then its devnet. */
export async function closeChainWorld(s: { world: World; rt: Runtime; bus: CommandBus; devnet: Devnet }): Promise<void> {
  try {
    await assertLedgerInvariants(s.rt.pool);
    // The database is dropped WITH (FORCE) under the pool's idle connections.
    s.rt.pool.on('error', () => undefined);
    await dropWorld(s.world, s.rt);
  } finally {
    await s.bus.stop();
    await s.rt.close().catch(() => undefined);
    await s.devnet.stop();
  }
}

/** The world's config with some variables changed (a watcher restarted with another rate, say). */
function newWorldCfg(world: World, env: Record<string, string>) {
  if (Object.keys(env).length === 0) return world.cfg;
  return { ...parseConfig({ ...world.env, ...env }), topicPrefix: world.cfg.topicPrefix };
}

/** A signed-up customer with its deposit address. */
export async function customerWithAddress(stack: DepositStack): Promise<Customer & { address: string }> {
  const customer = await signUp(stack.base);
  const rows = await signedCall(stack.base, customer.key, 'GET', '/v1/deposit-addresses');
  if (rows.status !== 200) throw new Error(`deposit-addresses: ${rows.status} ${rows.text}`);
  return { ...customer, address: rows.body.data[0].address };
}

export function walletOf(devnet: Devnet, index: number): TronWeb {
  return new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.customers[index].private_key });
}

/** TRX from a devnet customer wallet, as a customer sends it. */
export async function sendTrx(devnet: Devnet, from: number, to: string, sun: number): Promise<string> {
  const sent = await walletOf(devnet, from).trx.sendTransaction(to, sun);
  if (!sent.result) throw new Error(`TRX send refused: ${JSON.stringify(sent)}`);
  return sent.transaction.txID;
}

/** USDT (TRC-20 transfer through the contract's ABI) from a devnet customer wallet. */
export async function sendUsdt(devnet: Devnet, from: number, to: string, baseUnits: number | bigint): Promise<string> {
  const usdt = await walletOf(devnet, from).contract().at(devnet.accounts.usdt_contract);
  return usdt.transfer(to, baseUnits.toString()).send({ feeLimit: 100_000_000 });
}

export async function produceBlocks(devnet: Devnet, count: number): Promise<number> {
  return (await devnet.post('/admin/blocks', { count })).head;
}

export async function watcherPosition(rt: Runtime): Promise<number> {
  const { rows } = await rt.pool.query('SELECT next_block FROM deposit_watcher_position WHERE watcher = $1', [WATCHER_NAME]);
  return rows.length ? Number(rows[0].next_block) : 0;
}

/** Waits until the watcher scanned every block it may (head − confirmations + 1) and the processor applied what it appended. */
export async function settled(stack: DepositStack, head: number): Promise<void> {
  const now: any = await (await fetch(`${stack.devnet.url}/walletsolidity/getnowblock`)).json();
  const solid = Number(now.block_header.raw_data.number);
  const target = Math.min(solid, head - CONFIRMATIONS + 1) + 1;
  await eventually(async () => (await watcherPosition(stack.rt)) >= target, 30_000, `watcher at block ${target}`);
  await eventually(async () => {
    const { rows } = await stack.rt.pool.query("SELECT count(*)::int AS n FROM command_results WHERE outcome = 'pending'");
    return rows[0].n === 0;
  }, 30_000, 'commands applied');
  // Commands the watcher appended may still be in flight to the processor: wait until it applied the log's end.
  await processorCaughtUp(stack.rt);
}

/** A signed GET (a GET signature may repeat: polls need no distinct timestamps). */
export async function signedGet(stack: DepositStack, customer: Customer, path: string) {
  return call(stack.base, 'GET', path, { headers: signedHeaders(customer.key, 'GET', path) });
}

export async function balanceOf(stack: DepositStack, customer: Customer): Promise<any> {
  const res = await signedGet(stack, customer, '/v1/balance');
  if (res.status !== 200) throw new Error(`balance: ${res.status} ${res.text}`);
  return res.body;
}

export async function creditedEvents(stack: DepositStack, accountId: string): Promise<any[]> {
  const records = await readTopic<any>(stack.rt, 'accountEvents');
  return records.map((r) => r.value).filter((e) => e.type === 'balance.credited' && e.accountId === accountId);
}
