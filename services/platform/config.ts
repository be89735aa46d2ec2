/**
 * The one place that reads the environment. Every role imports `loadConfig()`; nothing else touches
 * process.env, so a missing or malformed variable fails the start with one clear message.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { priceTable } from '../domain/pricing';
import { routingFeeTable } from '../domain/routing-fee';
import { deskTerms, type DeskTerms } from '../domain/desk/rules';
import { parseJson } from './json';
import { repoRoot } from './paths';

const boolFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

/** `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`: an address, or one with a prefix length its family allows. */
export function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** A JSON-valued setting: parsed here, int64 kept exact, so the domain receives values and never text. */
const jsonSetting = z.string().transform((text, ctx) => {
  try {
    return parseJson(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not JSON (${(err as Error).message})` });
    return z.NEVER;
  }
});

const hexKey = z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters');

const schema = z.object({
  /** Required outside the local and test profiles (STACK_PROFILE): a deployment says which chain it serves. */
  NETWORK: z.enum(['mainnet', 'nile']).optional(),
  BRAND: z.string().regex(/^[a-z][a-z0-9-]{1,30}$/, 'lower-case letters, digits and dashes').default('energy'),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  API_HOST: z.string().default('127.0.0.1'),
  /**
   * Proxies (load balancers) in front of the API, comma-separated addresses and CIDRs (`10.0.0.0/8,::1`).
   * Only from a peer on this list is X-Forwarded-For read, and its rightmost hop not on the list is the
   * client (every per-IP budget is keyed by it). Unset: the socket's peer is the client, any header ignored.
   */
  TRUSTED_PROXIES: z.string().optional().transform((v, ctx) => {
    const list = (v ?? '').split(',').map((e) => e.trim()).filter(Boolean);
    for (const entry of list) if (!isAddressOrCidr(entry)) ctx.addIssue({ code: 'custom', message: `${entry}: not an IP address or CIDR` });
    return list;
  }),
  /**
   * Prometheus metrics on a listener of their own (METRICS_HOST:METRICS_PORT), off the public port: they
   * name routes, queues and lag, and each scrape costs a pass over every series. 0: on the API's port
   * (the test profile, whose many service processes would otherwise contend for one port).
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Unset: API_HOST. */
  METRICS_HOST: z.string().optional(),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
  KAFKA_CLIENT_ID: z.string().default('energy-rental'),
  /** TLS to every broker (a SASL_SSL or SSL listener); the files below are PEM. */
  KAFKA_TLS: boolFromEnv.default(false),
  /** CA certificate(s) that signed the brokers' certificates. Unset: Node's trust store. */
  KAFKA_TLS_CA_FILE: z.string().min(1).optional(),
  /** A client certificate and its key, for a listener with ssl.client.auth=required; both or neither. */
  KAFKA_TLS_CERT_FILE: z.string().min(1).optional(),
  KAFKA_TLS_KEY_FILE: z.string().min(1).optional(),
  /** SASL on every broker connection (with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD). Unset: none. */
  KAFKA_SASL_MECHANISM: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  SCHEMA_REGISTRY_URL: z.string().url().default('http://127.0.0.1:8081/apis/ccompat/v7'),
  /** CA certificate (PEM) that signed an https:// registry's certificate. Unset: Node's trust store. */
  SCHEMA_REGISTRY_CA_FILE: z.string().min(1).optional(),
  /** HTTP basic auth to the registry; both or neither. */
  SCHEMA_REGISTRY_USERNAME: z.string().min(1).optional(),
  SCHEMA_REGISTRY_PASSWORD: z.string().min(1).optional(),
  /** Unset: postgres://postgres@127.0.0.1:5432/energy_<NETWORK>, so a mainnet process never opens the Nile database. */
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379/0'),
  /** CA certificate file (PEM) that signed the Redis server's certificate, for a `rediss://` REDIS_URL. Unset: Node's trust store. */
  REDIS_TLS_CA_FILE: z.string().min(1).optional(),
  TRON_FULL_HOST: z.string().url().default('http://127.0.0.1:8090'),
  /**
   * java-tron's JSON-RPC (node.jsonrpc; TronGrid: /jsonrpc on its host): an absolute URL or a path on
   * TRON_FULL_HOST. Set, an estimate reads its receivers' token balances as one eth_call batch; unset (or
   * a node that answers no batch), one triggerconstantcontract each.
   */
  TRON_JSONRPC_URL: z.string().regex(/^(https?:\/\/|\/)/, 'an http(s) URL or a path starting with /').optional(),
  /** How long an API call waits for the processor before the command is abandoned (and refused). */
  COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Partition counts of the declared topics; production may raise them, tests may lower them. */
  TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(256).default(6),
  /** 1 = real time. Tests run retries and expiry on a faster clock. */
  CLOCK_SCALE: z.coerce.number().positive().default(1),
  /** Real time (ms) a scaled clock starts from; the processes of one test share it so their clocks agree. */
  CLOCK_ORIGIN_MS: z.coerce.number().int().positive().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_TRACES_EXPORTER: z.enum(['none', 'console', 'otlp']).default('none'),
  /** OTLP/HTTP collector base URL, required with OTEL_TRACES_EXPORTER=otlp; spans are POSTed to <url>/v1/traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolFromEnv.default(false),
  /** Webhook deliveries in flight at once per dispatcher process. */
  WEBHOOK_SEND_CONCURRENCY: z.coerce.number().int().min(1).max(512).default(32),
  /** Of those, at most this many to one endpoint at once, so a slow endpoint waits alone (docs/security.md). */
  WEBHOOK_PER_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(512).default(4),
  /**
   * 32-byte key (64 hex) encrypting webhook secrets at rest. Required everywhere: the local and test
   * profiles get per-installation keys generated under .stack/ (infra/env/keys.sh); nothing in the
   * repository decrypts a database dump.
   */
  WEBHOOK_SECRET_KEY: hexKey.optional(),
  /** The key being rotated away from: still accepted for reading until `./bin/ops rotate-encryption-key` has run. */
  WEBHOOK_SECRET_KEY_PREVIOUS: hexKey.optional(),
  PROCESSOR_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  /** Topic name prefix; must start with the network. Tests give each file its own world with it. */
  TOPIC_PREFIX: z.string().regex(/^[a-z0-9._-]+\.$/, 'lower-case, ends with a dot').optional(),
  /** How long the group waits for a silent consumer before moving its partitions. */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).max(300_000).default(30_000),
  /**
   * Test-only chaos: `point:probability,...` makes the process SIGKILL itself at named points (for the
   * crash-safety tests). Refused on mainnet.
   */
  CHAOS_CRASH_POINTS: z.string().regex(/^([a-z.-]+:(0|1|0?\.\d+))(,[a-z.-]+:(0|1|0?\.\d+))*$/).optional(),
  /** Host name challenge messages are bound to (TIP-191 personal-sign text). Unset: localhost, refused on mainnet. */
  SERVICE_DOMAIN: z.string().regex(/^[a-z0-9.-]+(:\d+)?$/).optional(),
  /**
   * Extended public key at m/44'/195'/0' from which deposit addresses m/44'/195'/0'/0/i are derived; the
   * service never holds the private side. Default (nile/devnet only): the public key of the well-known
   * test mnemonic "test test ... junk", so anyone can sweep it; required explicitly on mainnet.
   */
  DEPOSIT_XPUB: z.string().regex(/^[xt]pub[1-9A-HJ-NP-Za-km-z]{100,112}$/, 'an extended public key').optional(),
  /** 32-byte key (64 hex) encrypting API-key secrets at rest; required like WEBHOOK_SECRET_KEY. */
  API_KEY_ENCRYPTION_KEY: hexKey.optional(),
  API_KEY_ENCRYPTION_KEY_PREVIOUS: hexKey.optional(),
  /**
   * The env profile the process was started under (infra/env/load.sh sets it). Only `local` and `test`
   * may open private webhook targets; unset counts as a real deployment.
   */
  STACK_PROFILE: z.string().optional(),
  /** Blocks waited before a deposit is credited (DepositAddress.confirmations_required). */
  DEPOSIT_CONFIRMATIONS: z.coerce.number().int().min(1).max(1000).default(19),
  /** TRC-20 USDT contract accepted for deposits (DepositAddress.contract); unset: null on reads. */
  USDT_CONTRACT: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/).optional(),
  /** Basis points taken off the USDT rate (5 = 0.05 %). */
  USDT_SPREAD_BPS: z.coerce.number().int().min(0).max(10_000).default(5),
  /** Below this a TRX transfer is held rather than credited (a brand parameter). */
  MIN_DEPOSIT_SUN: z.coerce.bigint().min(0n).default(1_000_000n),
  /** Where the USDT→TRX rate comes from: USDT_FIXED_RATE, or the DEX v3 pool's slot0(). */
  USDT_RATE_SOURCE: z.enum(['fixed_env', 'dex_v3']).default('dex_v3'),
  /** TRX per 1 USDT (decimal string) for USDT_RATE_SOURCE=fixed_env; unset: no rate (deposits wait, pending_rate). */
  USDT_FIXED_RATE: z.string().regex(/^\d{1,12}(\.\d{1,6})?$/, 'a decimal string, at most 6 decimals').optional(),
  /** DEX v3 pool (USDT/WTRX) read for USDT_RATE_SOURCE=dex_v3; off mainnet defaults to the devnet's (seed `devnet`). */
  DEX_POOL_ADDRESS: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/).optional(),
  /** USDT deposit bounds in base units (6 decimals): held below (held_below_min) and above (held_for_review). */
  USDT_MIN: z.coerce.bigint().min(0n).default(5_000_000n),
  /**
   * dex_v3 deposits are credited at the pool price averaged over this many solidified blocks (1: the price
   * of the newest block); until the watcher has seen the whole window, USDT deposits wait (pending_rate).
   */
  USDT_TWAP_BLOCKS: z.coerce.number().int().min(1).max(1_000).default(20),
  /** TRX per 1 USDT (decimal) the deposit rate must stay near; unset: no band. */
  USDT_REFERENCE_RATE: z.string().regex(/^\d{1,12}(\.\d{1,6})?$/, 'a decimal string, at most 6 decimals').optional(),
  /** Outside this many basis points of USDT_REFERENCE_RATE a USDT deposit is held for review, not credited. */
  USDT_RATE_BAND_BPS: z.coerce.number().int().min(1).max(10_000).default(1_000),
  USDT_MAX: z.coerce.bigint().min(1n).default(2_000_000_000n),
  /** Deposit watcher: real ms between polls of the chain; first block scanned when no position is stored. */
  DEPOSIT_POLL_MS: z.coerce.number().int().min(20).default(1_000),
  DEPOSIT_SCAN_FROM_BLOCK: z.coerce.number().int().min(0).default(0),
  /** Budgets (contract.md section 4); tests may raise them. */
  BUDGET_CHALLENGE_PER_IP_PER_MIN: z.coerce.number().int().min(1).default(10),
  BUDGET_CHALLENGE_PER_ADDRESS_PER_MIN: z.coerce.number().int().min(1).default(5),
  BUDGET_READS_PER_SEC: z.coerce.number().int().min(1).default(50),
  BUDGET_WRITES_PER_SEC: z.coerce.number().int().min(1).default(20),
  /** Public proofs (challenge verify, POST /v1/session, POST /v1/accounts with a signature): per IP per minute. */
  BUDGET_PROOFS_PER_IP_PER_MIN: z.coerce.number().int().min(1).default(30),
  /** Public reads without credentials (prices, the OpenAPI document): per IP per second. */
  BUDGET_PUBLIC_READS_PER_IP_PER_SEC: z.coerce.number().int().min(1).default(50),
  /**
   * Credentials that match nothing (unknown API key, bootstrap token or session cookie), per IP per minute;
   * past it the IP's credentials are refused before any lookup (docs/security.md).
   */
  BUDGET_CREDENTIAL_MISSES_PER_IP_PER_MIN: z.coerce.number().int().min(1).default(120),
  /** An account's reads and writes per second, as a multiple of one caller's budget: keys and sessions share it. */
  BUDGET_ACCOUNT_CALLERS: z.coerce.number().int().min(1).default(3),
  /**
   * The public origins of the two deployments (spec: {base_url} and {nile_base_url} without /v1), named as
   * `servers` in /v1/openapi.json; unset: a server variable with a placeholder the integrator fills in.
   */
  PUBLIC_ORIGIN_MAINNET: z.string().url().optional(),
  PUBLIC_ORIGIN_NILE: z.string().url().optional(),
  /** Orders: JSON price rows overriding the network's defaults (services/domain/pricing.ts). */
  ORDER_PRICES: jsonSetting.optional(),
  /** Orders: SUN charged to activate an inactive receiver; default per network (pricing.ts). */
  ACTIVATION_FEE_SUN: z.coerce.bigint().min(0n).optional(),
  /**
   * Orders: stake-pool signing keys (comma-separated hex). Default off mainnet: the devnet genesis pool
   * of DEVNET_SEED (services/chain/pool-keys.ts); required on mainnet for the broadcaster.
   */
  POOL_PRIVATE_KEYS: z.string().regex(/^[0-9a-fA-F]{64}(,[0-9a-fA-F]{64})*$/, 'comma-separated 64-hex keys').optional(),
  DEVNET_SEED: z.string().min(1).default('devnet'),
  /**
   * Transfer desk (contract.md section 12): the address wallets pay TRX to. Public (the API serves it); off
   * mainnet the devnet's desk address of seed `devnet` (devDefaults); unset on mainnet: no desk.
   */
  DESK_ADDRESS: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/).optional(),
  /**
   * The desk address's signing key (64 hex), read only by the desk-returner role (platform/role-secrets.ts);
   * off mainnet the default derives from DEVNET_SEED like the pool keys (services/chain/desk-key.ts).
   */
  DESK_PRIVATE_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex').optional(),
  /** The energy tier the desk sells (a sold row of the price table). */
  DESK_TIER: z.enum(['5m', '1h', '1d']).default('1h'),
  /** SUN per energy unit the desk adds to that tier's price row. */
  DESK_MARKUP_SUN: z.coerce.bigint().min(0n).default(10n),
  /**
   * Payments outside DESK_MIN_SUN..DESK_MAX_SUN are returned (3048); set bounds must buy the row's min..max amount.
   * Unset: 1 TRX and 500 TRX, narrowed to what the tier's row sells (domain/desk/rules.ts deskTerms).
   */
  DESK_MIN_SUN: z.coerce.bigint().min(1n).optional(),
  DESK_MAX_SUN: z.coerce.bigint().min(1n).optional(),
  /** Desk returner: real ms between passes over payments to return. */
  DESK_POLL_MS: z.coerce.number().int().min(20).default(500),
  DEVNET_POOL: z.coerce.number().int().min(0).max(1000).default(3),
  /** Orders: who fills new orders: the service's own stake pool, or the third-party provider (no reclaim, 3008). */
  ORDER_SUPPLIER: z.enum(['pool', 'provider']).default('pool'),
  /** Orders: how long a delegation may take to land before the order fails (5002, or 5004 when never allocated), in clock ms. */
  ORDER_WAIT_WINDOW_MS: z.coerce.number().int().min(1_000).default(90_000),
  /**
   * Orders: how long (real ms) POST /v1/orders waits for the delegation to be signed and broadcast before
   * answering `allocating` instead of `active` with its hash (spec section 3, synchronous delivery). 0: never waits.
   */
  ORDER_SYNC_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(1_500),
  /** Rows of one GET /v1/orders?format=csv answer at most; X-Next-Cursor continues (docs/security.md). */
  ORDERS_CSV_MAX_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Orders: how often the broadcaster, confirmer and scheduler look for work (real ms). */
  CHAIN_POLL_MS: z.coerce.number().int().min(20).default(500),
  /**
   * The broadcaster, confirmer and scheduler (and the desk returner and promo granter), with nothing in their
   * work lists: each empty pass in a row doubles the wait up to this (real ms); a new order's NOTIFY
   * (order_work) wakes the broadcaster and the confirmer at once, the others take up new work that much later
   * at most. What an idle service costs with thousands of orders open is mostly these polls (bench/README.md,
   * "Idle CPU"). At or below CHAIN_POLL_MS: no spacing out.
   */
  CHAIN_IDLE_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(2_000),
  /**
   * Orders: a pass of the broadcaster woken by new work starts at most this long (real ms) after the start of
   * the one before, so the work of a burst of commits is signed, stored and appended together (0: at once).
   */
  CHAIN_WAKE_GAP_MS: z.coerce.number().int().min(0).max(5_000).default(50),
  /** Orders: largest stake (SUN) of one delegation; a bigger order is split across pool addresses. Unset: no limit. */
  ORDER_MAX_DELEGATION_SUN: z.coerce.bigint().min(1_000_000n).optional(),
  /** Promo: first block scanned for the token's drop transfers (eligibility) and forwards. */
  PROMO_DROP_FROM_BLOCK: z.coerce.number().int().min(0).default(0),
  /** Promo: GET /v1/promo cache lifetime (spec: 15 s). */
  PROMO_CACHE_MS: z.coerce.number().int().min(0).default(15_000),
  /** Group commit: how long (real ms) the command bus lingers to append many commands in one produce request. */
  COMMAND_LINGER_MS: z.coerce.number().int().min(0).max(50).default(2),
  /**
   * Group commit: while no produce request is outstanding, a command is appended at the end of the event loop's
   * turn instead of lingering COMMAND_LINGER_MS (the linger then groups only what arrives while a request is out).
   */
  COMMAND_IDLE_FLUSH: boolFromEnv.default(true),
  /** Group commit: most commands in one produce request. */
  COMMAND_APPEND_MAX: z.coerce.number().int().min(1).max(10_000).default(500),
  /**
   * Longest a consumer's fetch waits at the broker for new records (ms). The broker answers a waiting fetch as
   * soon as a record arrives (min bytes 1), so this sets only how often an idle consumer asks again: each ask
   * costs the service and the broker CPU (bench/README.md "Open orders and idle CPU": 10 ms was a tenth of a
   * core idle under `make up`), and a longer wait adds no latency.
   */
  KAFKA_FETCH_MAX_WAIT_MS: z.coerce.number().int().min(1).max(5_000).default(1_000),
  /** API processes sharing API_PORT (node cluster); 1 = the API runs inside the main process. */
  API_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /**
   * Load shedding: commands one process may have waiting for an answer; past it, submit answers 503 at
   * once without appending (nothing stored), instead of queueing into timeouts (congestion collapse).
   */
  COMMAND_MAX_WAITING: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /**
   * Admission at the API's edge (services/api/admission.ts): requests one API process holds at once, and
   * the wait a new request may expect (in flight / finished per second, or the event loop's delay) before
   * it is answered 503 5030 with Retry-After at once, nothing stored or charged.
   */
  ADMISSION_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(1_024),
  ADMISSION_TARGET_MS: z.coerce.number().int().min(10).max(600_000).default(1_500),
  /**
   * Admission: the median latency (ms) of admitted requests that each API process's concurrency limit steers
   * to (services/api/admission.ts nextLimit). Most of an order's wait is behind this process (processor,
   * PostgreSQL, the shared CPU): more admitted means a longer queue there, not more answers, and an answer
   * needs room under the 2 s a client gives it for the time it waited before the process read it: at 2,000/s
   * offered on `make up`'s box, 500 left every answer's p99 at 3.3 to 5.7 s, 300 at 0.7 to 1.7 s (bench/README.md,
   * "Stop 41").
   */
  ADMISSION_LATENCY_MS: z.coerce.number().int().min(10).max(600_000).default(300),
  /** PostgreSQL connections per process (each API worker has its own pool). */
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(200).default(20),
  /**
   * PostgreSQL connections the API opens at start-up and every pool keeps when idle (the rest close after
   * 10 s idle). Opening one on a request's path is dear (a backend started and authenticated; figures in
   * bench/README.md, "Figures formerly quoted in code comments"): the first POST of a fresh process,
   * and the first after every quiet spell, paid it.
   * At most DATABASE_POOL_MAX.
   */
  DATABASE_POOL_MIN: z.coerce.number().int().min(0).max(200).default(4),
  /** Webhook dispatcher intake: most events written per transaction. */
  DISPATCHER_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /** Reconciler: real ms between passes comparing the chain with the records (services/reconciler/). */
  RECONCILE_EVERY_MS: z.coerce.number().int().min(100).default(10_000),
  /** Batches: receivers the batch executor reads and orders at once, across all batches (one waiting only for its done step holds no slot). */
  BATCH_EXECUTOR_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(256),
  /** Routing fee (docs/routing-fee.md): base markup in basis points on provider-routed orders; default per network. */
  ROUTING_FEE_BPS: z.coerce.number().int().min(0).max(10_000).optional(),
  /** Routing fee volume tiers: JSON array of {min_volume_sun, fee_bps}; default per network (services/domain/routing-fee.ts). */
  ROUTING_FEE_TIERS: jsonSetting.optional(),
  /**
   * Batches: the executor places an order only while fewer orders than this await delivery (allocating,
   * delegated) across the service and the oldest is younger than a third of ORDER_WAIT_WINDOW_MS
   * (services/batches/pacing.ts).
   */
  BATCH_MAX_OPEN_ORDERS: z.coerce.number().int().min(1).max(100_000).default(256),
  /**
   * Batches: while the oldest order awaiting delivery is younger than this (ms; at most a sixth of
   * ORDER_WAIT_WINDOW_MS) and the open-order bound holds the executor back, the bound grows from
   * BATCH_MAX_OPEN_ORDERS up to 8 times it; past it the bound shrinks back. 0: the bound stays fixed.
   * 5,000 (the default): more receivers/s than the fixed bound on a quiet machine, fewer on a machine loaded
   * by other work; figures in bench/README.md, "Batches: an adaptive open-order bound" and
   * "Figures formerly quoted in code comments".
   */
  BATCH_PACE_TARGET_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /**
   * Orders: most POST /v1/orders answers of one API process waiting for their broadcast at once (see
   * ORDER_SYNC_WAIT_MS); past it, and while the broadcaster is behind, the answer is `allocating` at once.
   */
  ORDER_SYNC_MAX_WAITING: z.coerce.number().int().min(1).max(10_000).default(16),
  /**
   * Subscription watcher: real ms between reads of the head from the moment the next block is due (the last
   * block's time plus the block interval seen) until it is there; otherwise it waits for that moment
   * (CHAIN_POLL_MS at most). docs/subscriptions.md.
   */
  SUBSCRIPTION_HEAD_POLL_MS: z.coerce.number().int().min(10).max(5_000).default(50),
  /**
   * Nice value (0 to 19) of a process whose roles are all background (none of api, processor, relay: the
   * answer path), e.g. `--roles broadcaster,confirmer`: under load the answer path gets the CPU first, the
   * background still gets every idle cycle and catches up after a burst. 0: no change. A process with an
   * answer-path role (`--roles all`, as `make up` runs) is never niced. docs/architecture.md.
   */
  BACKGROUND_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * Liveness (services/platform/liveness.ts): a background role whose loop has not turned for this long (real
   * ms) is reported stalled in /readyz and by role_progress_age_seconds. Above the slowest loop's period
   * (RECONCILE_EVERY_MS, 10 s by default).
   */
  ROLE_STALL_MS: z.coerce.number().int().min(1_000).default(60_000),
});

export type Config = Omit<z.infer<typeof schema>, 'NETWORK' | 'SERVICE_DOMAIN' | 'DEPOSIT_XPUB' | 'API_KEY_ENCRYPTION_KEY' | 'WEBHOOK_SECRET_KEY' | 'DATABASE_URL'> & {
  NETWORK: 'mainnet' | 'nile';
  SERVICE_DOMAIN: string;
  DATABASE_URL: string;
  /** Topic and consumer-group names carry the network, so two worlds never share a topic. */
  topicPrefix: string;
  DEPOSIT_XPUB: string;
  /** The key new secrets are sealed with. */
  API_KEY_ENCRYPTION_KEY: string;
  WEBHOOK_SECRET_KEY: string;
  /** Keys a sealed secret may be opened with, the current one first (then the previous one, during a rotation). */
  API_KEY_DECRYPTION_KEYS: string[];
  WEBHOOK_DECRYPTION_KEYS: string[];
  /** Started under the local or test profile (private webhook targets may be opened). */
  localProfile: boolean;
};

/** The secret keys (`.stack/keys.env`, written by infra/env/keys.sh) of this installation's local stack. */
const SECRET_KEY_NAMES = ['API_KEY_ENCRYPTION_KEY', 'WEBHOOK_SECRET_KEY'] as const;

/**
 * A process started without a profile on a machine that runs the local stack (`./bin/ops` typed in a
 * shell) finds that installation's generated keys; a deployment has no such file and must set them.
 */
function installationKeys(): Record<string, string> {
  let file: string;
  try {
    file = path.join(repoRoot(), '.stack', 'keys.env');
  } catch {
    return {};
  }
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=([0-9a-fA-F]{64})$/.exec(line.trim());
    if (m && (SECRET_KEY_NAMES as readonly string[]).includes(m[1])) out[m[1]] = m[2];
  }
  return out;
}

/** Public test values, accepted only off mainnet (see DEPOSIT_XPUB); never a secret key. */
export const devDefaults = {
  DEPOSIT_XPUB: 'xpub6BuRy7ZmkGfP2RWhoor1kWB1w9DvrtmJbFBvnC1bQ4SB5NbCHTyQYCJSXZtxDbFyHTmC7wkU2he3nYYdpZ3Vf6qUAkXSnL6RPif4BDtDEKr',
  /** The devnet's genesis is derived from DEVNET_SEED; these are its USDT contract and DEX pool for the default seed `devnet`. */
  USDT_CONTRACT: 'TR8Z6FdC3iES8WMMpQkMdmm3yPqHec3Cud',
  DEX_POOL_ADDRESS: 'TWxhtfzs4rwtHpJitQJxKhzJxPbpzNbtuQ',
  /** The address of the devnet desk key of seed `devnet` (services/chain/desk-key.ts; a unit test holds them equal). */
  DESK_ADDRESS: 'TDTTei2r7RPNBo8jKT9psi8w9uikw4Wkba',
};

/**
 * The public constants earlier versions used when no key was set. Never used to seal; accepted for
 * reading on the local and test profiles only, so a local database made before per-installation keys
 * keeps working until `./bin/ops rotate-encryption-key` re-seals it. A deployment never accepts them.
 */
const LEGACY_DEV_KEYS = {
  API_KEY_ENCRYPTION_KEY: '6465762d6f6e6c792d6170692d6b65792d656e6372797074696f6e2d6b657921',
  WEBHOOK_SECRET_KEY: '6465762d6f6e6c792d776562686f6f6b2d7365637265742d6b65792d2d2d2d21',
};

/** Not a key anyone could read from the repository (the old public constants) or guess (few distinct digits). */
function realKey(key: string): boolean {
  const lower = key.toLowerCase();
  if (Object.values(LEGACY_DEV_KEYS).includes(lower)) return false;
  return new Set(lower).size >= 8;
}

function readableKeys(current: string, previous: string | undefined, localProfile: boolean, legacy: string): string[] {
  const keys = [current, previous, localProfile ? legacy : undefined].filter((k): k is string => !!k).map((k) => k.toLowerCase());
  return [...new Set(keys)];
}

/** The database name carries the network: `energy_nile`, `energy_mainnet`. */
export function defaultDatabaseUrl(network: string): string {
  return `postgres://postgres@127.0.0.1:5432/energy_${network}`;
}

let cached: Config | undefined;

/**
 * What a real deployment must say itself rather than get a development default: the network (outside the
 * local and test profiles, an unset NETWORK would silently mean nile and its public test xpub), and on
 * mainnet the domain challenges are bound to and the deposit xpub. Every missing one is named at once.
 */
function deploymentProblems(
  env: { NETWORK?: string; SERVICE_DOMAIN?: string; DEPOSIT_XPUB?: string; OTEL_TRACES_EXPORTER?: string; OTEL_EXPORTER_OTLP_ENDPOINT?: string }, localProfile: boolean,
): string[] {
  const problems: string[] = [];
  if (!env.NETWORK && !localProfile) problems.push('NETWORK: required (mainnet or nile) outside the local and test profiles (STACK_PROFILE)');
  if (env.OTEL_TRACES_EXPORTER === 'otlp' && !env.OTEL_EXPORTER_OTLP_ENDPOINT) problems.push('OTEL_EXPORTER_OTLP_ENDPOINT: required when OTEL_TRACES_EXPORTER is otlp (the collector\'s base URL)');
  if (env.NETWORK === 'mainnet') {
    if (!env.SERVICE_DOMAIN) problems.push('SERVICE_DOMAIN: required when NETWORK is mainnet (the host name sign-in messages are bound to)');
    if (!env.DEPOSIT_XPUB) problems.push('DEPOSIT_XPUB: required when NETWORK is mainnet');
  }
  return problems;
}

/** Settings of the secured connections that only make sense together: every half-given pair is named. */
function securedConnectionProblems(env: z.infer<typeof schema>): string[] {
  const problems: string[] = [];
  const pair = (a: keyof typeof env, b: keyof typeof env, why: string) => {
    if (!!env[a] !== !!env[b]) problems.push(`${env[a] ? b : a}: required with ${env[a] ? a : b} (${why})`);
  };
  pair('KAFKA_TLS_CERT_FILE', 'KAFKA_TLS_KEY_FILE', 'a client certificate and its key');
  pair('SCHEMA_REGISTRY_USERNAME', 'SCHEMA_REGISTRY_PASSWORD', 'the registry\'s basic auth');
  const tlsFiles = (['KAFKA_TLS_CA_FILE', 'KAFKA_TLS_CERT_FILE'] as const).filter((k) => env[k]);
  if (!env.KAFKA_TLS && tlsFiles.length > 0) problems.push(`KAFKA_TLS: must be true when ${tlsFiles.join(' or ')} is set`);
  if (env.KAFKA_SASL_MECHANISM) {
    for (const k of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const) if (!env[k]) problems.push(`${k}: required with KAFKA_SASL_MECHANISM`);
  } else if (env.KAFKA_SASL_USERNAME || env.KAFKA_SASL_PASSWORD) {
    problems.push('KAFKA_SASL_MECHANISM: required with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (plain, scram-sha-256 or scram-sha-512)');
  }
  if (env.SCHEMA_REGISTRY_CA_FILE && !env.SCHEMA_REGISTRY_URL.startsWith('https:')) problems.push('SCHEMA_REGISTRY_CA_FILE: only with an https:// SCHEMA_REGISTRY_URL');
  return problems;
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  const localProfile = parsed.data.STACK_PROFILE === 'local' || parsed.data.STACK_PROFILE === 'test';
  const cfg = { ...parsed.data, NETWORK: parsed.data.NETWORK ?? 'nile', SERVICE_DOMAIN: parsed.data.SERVICE_DOMAIN ?? 'localhost' };
  if (cfg.WEBHOOK_ALLOW_PRIVATE_TARGETS && (cfg.NETWORK === 'mainnet' || !localProfile)) {
    throw new Error('Invalid configuration:\n  WEBHOOK_ALLOW_PRIVATE_TARGETS: only on the local and test profiles (STACK_PROFILE), never on mainnet');
  }
  const problems = [...deploymentProblems(parsed.data, localProfile), ...securedConnectionProblems(parsed.data)];
  for (const name of SECRET_KEY_NAMES) {
    const key = cfg[name];
    if (!key) {
      problems.push(`${name}: required (64 hex). The local and test profiles generate one under .stack/ (infra/env/keys.sh); a deployment sets its own.`);
    } else if (!realKey(key)) {
      problems.push(`${name}: a published or patterned value, not a key; generate one (openssl rand -hex 32)`);
    }
  }
  if (problems.length > 0) throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  if (cfg.NETWORK === 'mainnet' && cfg.CHAOS_CRASH_POINTS) {
    throw new Error('Invalid configuration:\n  CHAOS_CRASH_POINTS: refused when NETWORK is mainnet');
  }
  // The JSON settings' rows are checked by the same code that uses them, so a bad row stops the start.
  for (const [name, check] of [
    ['ORDER_PRICES', () => priceTable(cfg.NETWORK, cfg.ORDER_PRICES)],
    ['DESK_MIN_SUN', () => deskTermsOf(cfg)],
    ['ROUTING_FEE_TIERS', () => routingFeeTable(cfg.NETWORK, cfg.ROUTING_FEE_BPS, cfg.ROUTING_FEE_TIERS)],
  ] as const) {
    try {
      check();
    } catch (err) {
      throw new Error(`Invalid configuration:\n  ${name}: ${(err as Error).message}`);
    }
  }
  const topicPrefix = cfg.TOPIC_PREFIX ?? `${cfg.NETWORK}.`;
  if (!topicPrefix.startsWith(`${cfg.NETWORK}.`)) {
    throw new Error(`Invalid configuration:\n  TOPIC_PREFIX: must start with "${cfg.NETWORK}." so topic names carry the network`);
  }
  return {
    ...cfg,
    DATABASE_URL: cfg.DATABASE_URL ?? defaultDatabaseUrl(cfg.NETWORK),
    topicPrefix,
    DEPOSIT_XPUB: cfg.DEPOSIT_XPUB ?? devDefaults.DEPOSIT_XPUB,
    API_KEY_ENCRYPTION_KEY: cfg.API_KEY_ENCRYPTION_KEY!,
    WEBHOOK_SECRET_KEY: cfg.WEBHOOK_SECRET_KEY!,
    API_KEY_DECRYPTION_KEYS: readableKeys(cfg.API_KEY_ENCRYPTION_KEY!, cfg.API_KEY_ENCRYPTION_KEY_PREVIOUS, localProfile, LEGACY_DEV_KEYS.API_KEY_ENCRYPTION_KEY),
    WEBHOOK_DECRYPTION_KEYS: readableKeys(cfg.WEBHOOK_SECRET_KEY!, cfg.WEBHOOK_SECRET_KEY_PREVIOUS, localProfile, LEGACY_DEV_KEYS.WEBHOOK_SECRET_KEY),
    localProfile,
    USDT_CONTRACT: cfg.USDT_CONTRACT ?? (cfg.NETWORK === 'mainnet' ? undefined : devDefaults.USDT_CONTRACT),
    DEX_POOL_ADDRESS: cfg.DEX_POOL_ADDRESS ?? (cfg.NETWORK === 'mainnet' ? undefined : devDefaults.DEX_POOL_ADDRESS),
    DESK_ADDRESS: cfg.DESK_ADDRESS ?? (cfg.NETWORK === 'mainnet' ? undefined : devDefaults.DESK_ADDRESS),
  };
}

export function loadConfig(): Config {
  const env = process.env;
  cached ??= parseConfig(env.STACK_PROFILE === undefined && SECRET_KEY_NAMES.some((k) => !env[k]) ? { ...installationKeys(), ...env } : env);
  return cached;
}

/** The transfer desk's terms under this configuration (contract.md section 12; domain/desk/rules.ts). */
export function deskTermsOf(cfg: Pick<Config, 'NETWORK' | 'ORDER_PRICES' | 'ACTIVATION_FEE_SUN' | 'DESK_TIER' | 'DESK_MARKUP_SUN' | 'DESK_MIN_SUN' | 'DESK_MAX_SUN'>): DeskTerms {
  return deskTerms(priceTable(cfg.NETWORK, cfg.ORDER_PRICES, cfg.ACTIVATION_FEE_SUN), {
    tier: cfg.DESK_TIER, markupSun: cfg.DESK_MARKUP_SUN, minSun: cfg.DESK_MIN_SUN, maxSun: cfg.DESK_MAX_SUN,
  });
}

/** Every variable this file reads (docker-compose.yml's service passes each through; test/unit/compose.test.ts checks it). */
export const configVariables: readonly string[] = Object.keys(schema.shape);
