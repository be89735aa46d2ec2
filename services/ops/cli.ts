/**
 * The ops tool: `./bin/ops <command>`. Support actions append commands and wait for their results
 * exactly as the API does; `replay --verify` rebuilds the state from the log and compares.
 */
import { parseArgs } from 'node:util';
import { randomId } from '../domain/ids';
import { toBigInt } from '../domain/money';
import { commandBusFor, type CommandBus } from '../platform/command-bus';
import { promoOff, promoOptions, promoSet, promoSetOptions } from './promo';
import { loadConfig } from '../platform/config';
import { stringifyJson } from '../platform/json';
import { logger } from '../platform/logger';
import { createRuntime } from '../runtime';
import { type Runtime } from '../chain/clients';
import { replayAndVerify } from './replay';
import { rotateDepositAddress } from './rotate-deposit-address';
import { creditHeldDeposit } from './credit-held';
import { rotateEncryptionKeys } from './rotate-encryption-key';
import { rebuildStats } from '../stats/rebuild';
import { reconcileOnce, reconcileReport } from '../reconciler/run';
import { restoreInto } from './restore';
import { progressReporter, type Progress } from '../platform/progress';
import { accountOfOrder } from '../orders/reads';
import { listPayments } from '../desk/reads';
import { deskPaymentJson } from '../desk/rows';
import type { DeskPaymentStatus } from '../domain/desk/rules';

const deskStatuses: readonly DeskPaymentStatus[] = ['ordered', 'returning', 'returned', 'recorded'];

function deskListOptions(values: Record<string, unknown>): { statuses: DeskPaymentStatus[] | null; limit: number } {
  const statuses = typeof values.status === 'string' ? values.status.split(',').map((s) => s.trim()) : null;
  if (statuses && !statuses.every((s) => (deskStatuses as readonly string[]).includes(s))) throw new UsageError(`--status must be among ${deskStatuses.join(', ')}`);
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
  return { statuses: statuses as DeskPaymentStatus[] | null, limit };
}

const help = `Usage: ./bin/ops <command> [options]

Commands:
  create-account [--owner-address T...] [--display-name text]
      Creates a bare account (until signup exists, for tests and support). Prints its id.
  rotate-deposit-address --account <acc_id>
      Replaces the account's deposit address (at most once per 30 days, 3 times per 365 days); the old one
      still credits for 30 days. Emits deposit_address.rotated. Prints the new address.
  set-low-balance-alert --account <acc_id> --threshold-sun <n|off>
      balance.low fires when the available balance crosses below the threshold (default: off).
  adjust --account <acc_id> --amount-sun <n> --memo <text>
      Support adjustment, positive or negative. Prints the journal id.
  credit-held --deposit <txid or txid:log_index> [--memo <text>]
      Credits a held deposit (below min, above max, TRX residual, retired address past its window) or one
      waiting for a rate; USDT at the rate in force now minus the spread. Emits balance.credited. Prints the journal id.
  refund-order --order <ord_id> --reason <incident_credit|dispute|partial_delivery|support_adjustment>
      Reverses a delivered order: credits back what was not refunded yet, order.refunded and a matching
      balance.credited (reason refund). Prints the order as JSON.
  rotate-encryption-key
      Re-seals every stored API-key and webhook secret under the current API_KEY_ENCRYPTION_KEY and
      WEBHOOK_SECRET_KEY, opening them with the *_PREVIOUS keys as needed (set both during the change).
      Prints one line per table; exits non-zero if a secret opens with no configured key.
  promo set --token-id <id> --grant-energy <n> --grant-seconds <n> [--cap-per-day <n>] [--starts <iso>] [--ends <iso>] [--forward-address <T...>]
      Makes the network's promo active for holders who received the token from its drop (the token's issuer).
  promo off
      Turns the network's promo off.
  replay --verify [--keep]
      Rebuilds every table from account-commands into an empty database, compares it with the live one,
      exits non-zero on a difference. --keep leaves the rebuilt database in place.
  rebuild-stats
      Empties the stats projection (GET /v1/account/stats) and rebuilds it from order-events, with
      progress on stderr; safe while the stats role runs. Prints how many records it projected and how long it took.
  reconcile [--repair] [--all]
      Compares the chain with the records (services/reconciler/checks.ts): per pool address and receiver the
      stake delegated on chain against the open orders' delegations. Prints (pool, receiver, resource, on
      chain, expected, difference) for rows that differ (every row with --all); exits 1 on a difference no
      transaction in flight explains. --repair first re-delegates missing stake for orders inside their
      window, refunds the others (order.refunded + balance.credited), and undelegates leaked stake.
  desk-payments [--status <ordered|returning|returned|recorded>[,...]] [--limit <n>]
      The transfer desk's payments, newest first (default 50, at most 1000): sender, amount, memo, receiver,
      status, the order each placed, and for returned ones the refusal, the refund and the return's txid.
  restore --into <database>
      Rebuilds every table on the log from the topics alone into a new database (the live one is not
      read), with progress; stamps it with the log; prints the DATABASE_URL to start the service on.
  --help
      This text.

Every command takes --json: its result as one JSON object on stdout (the journal, the address, the report),
progress as JSON objects on stderr. The long ones (replay, rebuild-stats, reconcile, restore,
rotate-encryption-key) show progress on stderr: done/total, rate and time left, one rewritten line on a
terminal.

The environment is read as by the service (DATABASE_URL, KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL, NETWORK, ...).`;

class UsageError extends Error {}

const refundReasons = ['incident_credit', 'dispute', 'partial_delivery', 'support_adjustment'] as const;
type RefundReason = (typeof refundReasons)[number];

/** node's parseArgs takes `-5` for an option; `--amount-sun -5` is what people type for a debit. */
function joinNegativeValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i].startsWith('--') && !args[i].includes('=') && /^-\d/.test(args[i + 1] ?? '')) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

function parseOptions(config: Parameters<typeof parseArgs>[0]) {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function need(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function withBus<T>(rt: Runtime, fn: (bus: CommandBus) => Promise<T>): Promise<T> {
  const bus = commandBusFor(rt);
  await bus.start();
  try {
    return await fn(bus);
  } finally {
    await bus.stop();
  }
}

function failOn(result: Awaited<ReturnType<CommandBus['submit']>>): void {
  if (result.outcome !== 'applied') {
    const slug = result.error?.slug ?? 'unknown';
    throw new Error(`${result.outcome}: ${slug}${result.error?.message ? ` (${result.error.message})` : ''}`);
  }
}

async function run(argv: string[]): Promise<number> {
  const [first, ...afterFirst] = argv;
  // `promo set` / `promo off`: a two-word command.
  const command = first === 'promo' ? `promo ${afterFirst[0] ?? ''}` : first;
  const rest = first === 'promo' ? afterFirst.slice(1) : afterFirst;
  if (!command || command === '--help' || command === 'help') {
    console.log(help);
    return 0;
  }
  const { values } = parseOptions({
    args: joinNegativeValues(rest),
    options: {
      account: { type: 'string' }, 'amount-sun': { type: 'string' }, memo: { type: 'string' },
      'owner-address': { type: 'string' }, 'display-name': { type: 'string' },
      deposit: { type: 'string' },
      order: { type: 'string' }, reason: { type: 'string' }, 'threshold-sun': { type: 'string' },
      verify: { type: 'boolean' }, keep: { type: 'boolean' }, json: { type: 'boolean' },
      ...promoOptions,
      repair: { type: 'boolean' }, all: { type: 'boolean' },
      into: { type: 'string' },
      status: { type: 'string' }, limit: { type: 'string' },
    },
  });
  const cfg = loadConfig();
  logger.level = cfg.LOG_LEVEL === 'info' ? 'warn' : cfg.LOG_LEVEL;
  const json = Boolean(values.json);
  const meter = progressReporter({ json });
  /** The result: as JSON under --json, else the plain text. */
  const print = (result: unknown, text: string) => console.log(json ? stringifyJson(result) : text);

  if (!['create-account', 'adjust', 'replay', 'rotate-deposit-address', 'credit-held', 'refund-order', 'set-low-balance-alert', 'rotate-encryption-key', 'promo set', 'promo off', 'rebuild-stats', 'reconcile', 'restore', 'desk-payments'].includes(command)) throw new UsageError(`unknown command ${command}`);
  let amount = 0n;
  if (command === 'adjust') {
    need(values, 'account');
    need(values, 'memo');
    try {
      amount = toBigInt(need(values, 'amount-sun'));
    } catch {
      throw new UsageError('--amount-sun must be an integer number of SUN');
    }
  }
  if (command === 'rotate-deposit-address') need(values, 'account');
  if (command === 'refund-order') {
    need(values, 'order');
    if (!(refundReasons as readonly string[]).includes(need(values, 'reason'))) throw new UsageError(`--reason must be one of ${refundReasons.join(', ')}`);
  }
  if (command === 'credit-held') need(values, 'deposit');
  let threshold: bigint | null = null;
  if (command === 'set-low-balance-alert') {
    need(values, 'account');
    const text = need(values, 'threshold-sun');
    if (text !== 'off') {
      try {
        threshold = toBigInt(text);
      } catch {
        throw new UsageError('--threshold-sun must be an integer number of SUN, or off');
      }
      if (threshold < 0n) throw new UsageError('--threshold-sun must not be negative');
    }
  }
  if (command === 'replay' && !values.verify) throw new UsageError('replay needs --verify');
  const desk = command === 'desk-payments' ? deskListOptions(values) : null;
  if (command === 'promo set') {
    try {
      promoSetOptions(values);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  // Before any runtime on DATABASE_URL: the live database may be gone, and must not be created empty.
  if (command === 'restore') return restore(cfg, need(values, 'into'), meter, print);

  const rt = await createRuntime(cfg);
  try {
    switch (command) {
      case 'create-account': {
        const result = await withBus(rt, (bus) =>
          bus.submit({
            type: 'account.create', accountId: randomId('account'), brand: cfg.BRAND, network: cfg.NETWORK,
            ownerAddress: (values['owner-address'] as string | undefined) ?? null,
            displayName: (values['display-name'] as string | undefined) ?? null,
          }),
        );
        failOn(result);
        print(result.body, String(result.body?.account_id));
        return 0;
      }
      case 'rotate-deposit-address': {
        const result = await withBus(rt, (bus) => rotateDepositAddress(rt, bus, values.account as string));
        failOn(result);
        print(result.body, String(result.body?.address));
        return 0;
      }
      case 'desk-payments': {
        const rows = (await listPayments(rt.pool, desk!.statuses, desk!.limit)).map(deskPaymentJson);
        print({ data: rows }, rows.map((r) => [r.created_at, r.txid, r.sender, r.amount, r.status, r.order_id, r.refusal ?? '', r.refund_sun, r.return_txid ?? ''].join('\t')).join('\n') || '(no desk payments)');
        return 0;
      }
      case 'credit-held': {
        const result = await withBus(rt, (bus) => creditHeldDeposit(rt, bus, values.deposit as string, (values.memo as string | undefined) ?? null));
        if (!result) throw new Error(`no deposit ${values.deposit as string}`);
        failOn(result);
        print(result.body, String(result.body?.journal_id));
        return 0;
      }
      case 'refund-order': {
        const accountId = await accountOfOrder(rt.pool, values.order as string);
        if (accountId === null) throw new Error(`no order ${values.order}`);
        const result = await withBus(rt, (bus) =>
          bus.submit({ type: 'order.refund', accountId, orderId: values.order as string, reason: values.reason as RefundReason }),
        );
        failOn(result);
        console.log(stringifyJson(result.body));
        return 0;
      }
      case 'set-low-balance-alert': {
        const result = await withBus(rt, (bus) =>
          bus.submit({ type: 'account.set_low_balance_alert', accountId: values.account as string, thresholdSun: threshold }),
        );
        failOn(result);
        console.log(stringifyJson(result.body));
        return 0;
      }
      case 'rotate-encryption-key': {
        const reports = await rotateEncryptionKeys(rt.pool, cfg, meter);
        print({ tables: reports }, reports.map((r) => `${r.table.padEnd(18)} resealed ${r.resealed}  already current ${r.current}  unreadable ${r.unreadable.length}`).join('\n'));
        return reports.some((r) => r.unreadable.length > 0) ? 1 : 0;
      }
      case 'adjust': {
        const result = await withBus(rt, (bus) =>
          bus.submit({ type: 'balance.adjust', accountId: values.account as string, amountSun: amount, memo: values.memo as string }),
        );
        failOn(result);
        print(result.body, String(result.body?.journal_id));
        return 0;
      }
      case 'promo set':
      case 'promo off': {
        const result = await withBus(rt, (bus) => (command === 'promo set' ? promoSet(rt, bus, values) : promoOff(rt, bus)));
        failOn(result);
        console.log(stringifyJson(result.body));
        return 0;
      }
      case 'rebuild-stats': {
        const report = await rebuildStats(rt, (line) => meter.note(line));
        print(report, `rebuilt stats from ${report.events} records (${report.skipped} already projected by the running role) in ${report.ms} ms`);
        return 0;
      }
      case 'reconcile': {
        const outcome = values.repair ? await withBus(rt, (bus) => reconcileOnce(rt, { repairWith: bus, meter })) : await reconcileOnce(rt, { meter });
        print(outcome, reconcileReport(outcome, values.all as boolean | undefined));
        return outcome.findings === 0 ? 0 : 1;
      }
      default: {
        const report = await replayAndVerify(rt, { keep: values.keep as boolean, progress: (line) => meter.note(line), meter });
        const lines = report.tables.flatMap((t) => {
          const state = t.differences.length === 0 ? 'identical' : `${t.differences.length} differences`;
          return [`${t.table.padEnd(22)} live ${String(t.live).padStart(8)}  replayed ${String(t.replayed).padStart(8)}  ${state}`, ...t.differences.slice(0, 10).map((d) => `    ${d}`)];
        });
        print(report, [...lines, report.identical ? `identical after ${report.records} records` : 'DIFFERENT'].join('\n'));
        return report.identical ? 0 : 1;
      }
    }
  } finally {
    await rt.close();
  }
}

async function restore(cfg: ReturnType<typeof loadConfig>, into: string, meter: Progress, print: (result: unknown, text: string) => void): Promise<number> {
  const report = await restoreInto(cfg, into, (line) => meter.note(line));
  print(report, [
    ...report.tables.map((t) => `${t.table.padEnd(22)} ${String(t.rows).padStart(9)} rows`),
    `restored ${report.records} records in ${report.seconds.toFixed(1)} s (${report.unpublished} outbox messages left for the relay)`,
    `DATABASE_URL=${report.databaseUrl}`,
  ].join('\n'));
  return 0;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof UsageError ? `${err.message}\n\n${help}` : `ops: ${(err as Error).message}`);
    process.exit(err instanceof UsageError ? 64 : 1);
  },
);
