/** Helpers of the webhook tests: accounts and credits through the real pipeline, endpoints in the table. */
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { randomId } from '../../services/domain/ids';
import { newEndpointSecret } from '../../services/webhooks/signing';
import { webhookSecretBox } from '../../services/webhooks/secrets';
import type { Resolver } from '../../services/webhooks/url-check';
import { startDispatcher } from '../../services/dispatcher/dispatcher';
import { startRoles, type Stoppable } from '../../services/roles';
import { startReceiver, testCa, type Receiver } from './https-receiver';
import { dropWorld, newWorld, openBus, openRuntime, type World } from './world';

export async function createAccount(rt: Runtime, bus: CommandBus): Promise<string> {
  const result = await bus.submit({ type: 'account.create', accountId: randomId('account'), brand: rt.cfg.BRAND, network: rt.cfg.NETWORK, ownerAddress: null, displayName: null });
  if (result.outcome !== 'applied') throw new Error(`account not created: ${JSON.stringify(result)}`);
  return result.body!.account_id as string;
}

/** A support credit: produces one balance.credited event; returns its journal id (the event's reference_id). */
export async function credit(bus: CommandBus, accountId: string, amountSun: bigint): Promise<string> {
  const result = await bus.submit({ type: 'balance.adjust', accountId, amountSun, memo: 'webhook test' });
  if (result.outcome !== 'applied') throw new Error(`credit not applied: ${JSON.stringify(result)}`);
  return result.body!.journal_id as string;
}

export interface TestEndpoint {
  id: string;
  secret: string;
}

export async function insertEndpoint(
  rt: Runtime, accountId: string, url: string, options: { role?: 'primary' | 'backup'; events?: string[] | null; active?: boolean } = {},
): Promise<TestEndpoint> {
  const id = randomId('webhookEndpoint');
  const secret = newEndpointSecret();
  const now = new Date(rt.clock.now());
  await rt.pool.query(
    `INSERT INTO webhook_endpoints (id, account_id, url, role, events, is_active, secret_sealed, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    [id, accountId, url, options.role ?? 'primary', options.events ?? null, options.active ?? true, webhookSecretBox(rt.cfg).seal(id, secret), now],
  );
  return { id, secret };
}

/** An endpoint created through the log (webhook.create, as POST /v1/webhooks does), for worlds a replay checks. */
export async function createEndpointOnLog(rt: Runtime, bus: CommandBus, accountId: string, url: string): Promise<TestEndpoint> {
  const id = randomId('webhookEndpoint');
  const secret = newEndpointSecret();
  const result = await bus.submit({
    type: 'webhook.create', accountId, endpointId: id, url, role: null, events: null, secretSealed: webhookSecretBox(rt.cfg).seal(id, secret),
  });
  if (result.outcome !== 'applied') throw new Error(`endpoint not created: ${JSON.stringify(result)}`);
  return { id, secret };
}

export async function rotateSecretInTable(rt: Runtime, endpointId: string): Promise<string> {
  const secret = newEndpointSecret();
  await rt.pool.query('UPDATE webhook_endpoints SET secret_sealed = $2 WHERE id = $1', [endpointId, webhookSecretBox(rt.cfg).seal(endpointId, secret)]);
  return secret;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  state: string;
  attempt: number;
  target_attempt: number;
  failed_over: boolean;
  response_status: number | null;
  error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
}

export async function deliveriesOf(rt: Runtime, accountId: string): Promise<DeliveryRow[]> {
  const { rows } = await rt.pool.query('SELECT * FROM webhook_deliveries WHERE account_id = $1 ORDER BY seq', [accountId]);
  return rows as DeliveryRow[];
}

/** A webhook test's world: runtime, optionally the pipeline (processor, relay) and an in-process dispatcher trusting the test CA. */
export interface WebhookWorld {
  world: World;
  rt: Runtime;
  bus: CommandBus;
  /** A receiver closed with the world. */
  receiver(answer?: Receiver['answer']): Promise<Receiver>;
  /** Stops everything, `before` first (servers of the test). */
  stop(before?: () => Promise<unknown>): Promise<void>;
}

export async function startWebhookWorld(
  label: string, env: Record<string, string>, options: { pipeline?: boolean; dispatcher?: boolean; resolve?: Resolver } = {},
): Promise<WebhookWorld> {
  const world = newWorld(label, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...env });
  const rt = await openRuntime(world);
  const bus = await openBus(rt);
  const roles: Stoppable[] = options.pipeline === false ? [] : await startRoles(rt, ['processor', 'relay']);
  const dispatcher = options.dispatcher === false ? undefined : await startDispatcher({
    log: rt.log, codec: rt.codec, pool: rt.pool, clock: rt.clock, secrets: webhookSecretBox(rt.cfg),
    allowPrivate: true, concurrency: 8, userAgent: 'energy-webhook/1', ca: testCa().ca, resolve: options.resolve,
  });
  const receivers: Receiver[] = [];
  return {
    world, rt, bus,
    receiver: async (answer) => {
      const r = await startReceiver(answer);
      receivers.push(r);
      return r;
    },
    stop: async (before) => {
      await before?.();
      await dispatcher?.stop();
      await Promise.allSettled(roles.map((r) => r.stop()));
      await Promise.allSettled(receivers.map((r) => r.close()));
      await bus.stop();
      await rt.close();
      await dropWorld(world);
    },
  };
}
