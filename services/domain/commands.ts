/**
 * Commands: every change to money or to an account enters the log as one of these. A command carries
 * everything its effect depends on (ids, the time it was received, prices, chain facts) so a replay of
 * the log rebuilds the same state.
 */
import type { ForTransferFacts } from './estimates';
import type { DepositFacts, DepositPricing } from './deposits';
import type { BatchCommand } from './batches/commands';
import type { SubscriptionCommand } from './subscriptions/commands';
import type { PromoConfig } from './promo/rules';
import type { DeskCommand } from './desk/commands';

export interface CommandMeta {
  commandId: string;
  accountId: string;
  /** When the command was received; the effects' timestamps derive from it, never from the processor's clock. */
  issuedAt: number;
  /** Past this instant the processor refuses the command; null for commands that must always apply (chain facts). */
  deadlineAt: number | null;
  /** Reply channel of the waiting API or ops instance; null when nobody waits. */
  replyTo: string | null;
  /**
   * Price per unit of 5m energy in force when the command was received (absent on commands nobody priced),
   * so a balance.low raised by this command estimates the orders left the same way in a replay.
   */
  energyPrice5mSun?: bigint | null;
}

export interface CreateAccountCommand {
  type: 'account.create';
  brand: string;
  network: 'mainnet' | 'nile';
  ownerAddress: string | null;
  displayName: string | null;
  email?: string | null;
  /** Drawn by the caller (a PostgreSQL sequence) so a replay derives nothing itself. */
  depositAddress?: string | null;
  depositIndex?: number | null;
}

/** The owner's title for the account (PATCH /v1/account); null clears it. */
export interface RenameAccountCommand {
  type: 'account.rename';
  displayName: string | null;
}

/**
 * Issues a deposit address (first issue, for an account that has none) or replaces it (support rotation,
 * within the rotation limits). Emits deposit_address.rotated.
 */
export interface AssignDepositAddressCommand {
  type: 'deposit_address.assign';
  address: string;
  derivationIndex: number;
  /** `issue` does nothing when the account already has an address (two first reads racing). */
  reason: 'issue' | 'rotate';
}

export interface AdjustBalanceCommand {
  type: 'balance.adjust';
  amountSun: bigint;
  memo: string;
}

/**
 * Deposit watcher: a TRX transfer or USDT Transfer log to a deposit address, confirmed on a solidified
 * block, with the pricing in force when it was seen. The id derives from (txid, log index), so a re-read
 * of the chain appends the same command and the processor applies it once.
 */
export interface CreditDepositCommand extends DepositFacts, DepositPricing {
  type: 'deposit.credit';
}

/**
 * A deposit seen but not credited, credited now: by the watcher when a rate returns (`rate`, for
 * pending_rate) or by support (`support`, any held row; ops credit-held). USDT carries the rate to use.
 */
export interface ReleaseDepositCommand {
  type: 'deposit.release';
  depositId: string;
  reason: 'rate' | 'support';
  rateSun: bigint | null;
  rateSource: string | null;
  spreadBps: number;
  memo: string | null;
}


/**
 * POST /v1/orders: the API resolved the price in force (or the quote), read the receiver's activation
 * state from the chain and put both here; the processor decides idempotency, funds and the reservation.
 */
export interface CreateOrderCommand {
  type: 'order.create';
  clientOrderId: string | null;
  idempotencyKey: string | null;
  requestHash: string;
  resource: 'energy' | 'bandwidth' | 'activation';
  amount: number | null;
  tier: string | null;
  durationSeconds: number | null;
  receiver: string;
  /** As read from the chain by the API when the order arrived. */
  receiverActive: boolean;
  activate: boolean | null;
  maxPriceSun: bigint | null;
  quoteId: string | null;
  /** Quote's end of life; the processor refuses the quote past it (3012). */
  quoteExpiresAt: number | null;
  priceSunPerUnit: bigint | null;
  paySun: bigint;
  activateSun: bigint;
  source: string;
  memo: string | null;
  supplier: 'pool' | 'provider';
  /** Set when a batch's executor placed the order. */
  batchId?: string | null;
  /** Set when a subscription's refill placed the order (source `subscription`). */
  subscriptionId?: string | null;
  /** `for_transfer` (contract.md section 11): the order is sized by the processor from these facts. */
  forTransfer?: ForTransferFacts | null;
}

export type { ForTransferFacts };

/** A chain transaction signed for an order, carried in a command so the processor stores it before broadcast. */
export interface SignedTxFact {
  kind: 'delegate' | 'activate' | 'undelegate';
  from: string;
  amount: number;
  sun: bigint;
  txId: string;
  signedTx: string;
}

/** Broadcaster: the order's signed transactions (first one stored wins) and the chain's resource ratio. */
export interface AllocateOrderCommand {
  type: 'order.allocate';
  orderId: string;
  txs: SignedTxFact[];
  ratioLimit: bigint;
  ratioWeight: bigint;
}

/** Confirmer: which transactions landed (the others never will) and when; delivery settles. */
export interface SettleOrderCommand {
  type: 'order.settle';
  orderId: string;
  landedTxIds: string[];
  /**
   * The confirmer's clock time (its injected clock, not block time) at the pass that saw every hash
   * landed, or the wait window over; `delegated_at`, and `expires_at` counts from it.
   */
  deliveredAt: number;
  /**
   * Own delegations that landed but were not counted (past the window the pool's delegated balance did
   * not cover them): no delivery, but the stake is the order's to take back (closesAfterEnd). Absent: none.
   */
  strandedTxIds?: string[];
}

/**
 * One entry of `order.allocations`: an order's signed set, as its own `order.allocate` carries it.
 * `broadcast`: the broadcaster sends the set's delegations to the node as soon as this command is on the
 * log and a POST /v1/orders answer may be waiting for it, so the set is applied as broadcast (`delegated`,
 * read as `active` with its hash) in the same step, and the waiting API is told by the processor's commit
 * (no report on the log).
 */
export interface AllocationEntry {
  orderId: string;
  txs: SignedTxFact[];
  ratioLimit: bigint;
  ratioWeight: bigint;
  broadcast: boolean;
}

/**
 * Broadcaster: the signed sets of one account stored in one pass, each entry decided alone as its own
 * `order.allocate` would be (the first set stored wins; an order no longer allocating refuses its entry).
 */
export interface AllocateOrdersCommand {
  type: 'order.allocations';
  entries: AllocationEntry[];
}

/** One entry of `order.settlements`: the fields of an `order.settle` for one order. */
export interface SettlementEntry {
  orderId: string;
  landedTxIds: string[];
  deliveredAt: number;
  strandedTxIds?: string[];
}

/**
 * Confirmer: the settlements of one account decided in one pass, each entry decided alone as its own
 * `order.settle` would be (an order already settled refuses its entry; the others settle).
 */
export interface SettleOrdersCommand {
  type: 'order.settlements';
  entries: SettlementEntry[];
}

/** Scheduler or reclaim: the undelegations signed for the order, stored before broadcast. */
export interface CloseOrderCommand {
  type: 'order.close';
  orderId: string;
  /** `request` asks (API reclaim or due expiry), `signed` stores the undelegations, `landed` finishes. */
  step: 'request' | 'signed' | 'landed';
  reason: 'expired' | 'reclaimed';
  txs: SignedTxFact[];
  idempotencyKey: string | null;
  at: number;
  /**
   * `signed` only: tx ids of stored undelegations that can no longer land (head past their expiration,
   * not in a block); `txs` is then the whole new set, stored only while those are still the stored ones.
   */
  replaces: string[];
}

/** Support action (ops refund): a delivered order reversed and credited back. */
export interface RefundOrderCommand {
  type: 'order.refund';
  orderId: string;
  reason: 'incident_credit' | 'dispute' | 'partial_delivery' | 'support_adjustment';
  /**
   * The order's stake is not on chain (ops reconcile --repair): it was never delivered, so it ends
   * `failed` with `order.failed` (and the same refund) instead of `refunded`. Absent: false.
   */
  undelivered?: boolean;
}

/**
 * A delivery step that is not a settlement. `broadcast` (broadcaster): the node accepted every delegation
 * of the stored set at `at`; the order is `delegated` (on its way, not verified). `activate` (the
 * settlement's follow-up): a verified order enters its rental, `confirmed` -> `active`.
 */
export interface DeliverOrderCommand {
  type: 'order.deliver';
  orderId: string;
  step: 'broadcast' | 'activate';
  /** `broadcast`: the delegations the node accepted (every delegation of the stored set). */
  txIds: string[];
  at: number;
}

/** `unprocessable`: the processor could not apply the command (e.g. the database refused its data). */
export type RefusalReason = 'deadline_passed' | 'abandoned' | 'unprocessable';

/** Written back to the log (through the outbox) when a command is refused, so a replay refuses it too. */
export interface CommandRefusedMarker {
  type: 'command.refused';
  refusedCommandId: string;
  reason: RefusalReason;
}

/** Sets the account's balance.low threshold on the available balance; null turns the alert off. */
export interface SetLowBalanceAlertCommand {
  type: 'account.set_low_balance_alert';
  thresholdSun: bigint | null;
}

/**
 * Promo commands all carry this key as their account id: one partition, one writer, so "one grant per
 * address" and the daily cap are decided in order, exactly, whatever the concurrency at the API.
 */
export const PROMO_KEY = 'promo';

/** ops promo set / off: the network's promo, with the token's name and issuer read from the chain. */
export interface ConfigurePromoCommand extends PromoConfig {
  type: 'promo.configure';
}

/** A claim (signature checked by the API, or a forward seen on chain), eligibility read from the chain. */
export interface RedeemPromoCommand {
  type: 'promo.redeem';
  address: string;
  method: 'signature' | 'forward';
  /** Forward claims: the forwarding transaction (the claim's id derives from it). */
  forwardTxId: string | null;
}

/**
 * The granter: `signed` stores the delegation before broadcast (the first stored wins: a grant is never
 * signed twice), `delegated` / `failed` finish it, `return_signed` and `returned` the undelegation.
 */
export interface GrantPromoCommand {
  type: 'promo.grant';
  address: string;
  step: 'signed' | 'delegated' | 'failed' | 'return_signed' | 'returned';
  txId: string | null;
  signedTx: string | null;
  poolAddress: string | null;
  stakeSun: bigint | null;
  at: number;
  failure: string | null;
}

/** POST /v1/promo/dev/claim: a wallet's personal test-network code (the code drawn by the API); one per wallet. */
export interface ClaimDevCodeCommand {
  type: 'promo.dev_code';
  address: string;
  code: string;
  /** Routing-fee cap in basis points (300 = 3 %). */
  feeBps: number;
  durationDays: number;
  activateBy: number | null;
}

/** POST /v1/account/promo: an account enters a dev code (single use, decided on the PROMO_KEY partition). */
export interface EnterDevCodeCommand {
  type: 'promo.dev_code_enter';
  code: string;
  targetAccountId: string;
}

/** Issues an API key; the secret only sealed. `maxActive` is the limit in force when the API accepted it. */
export interface IssueApiKeyCommand {
  type: 'api_key.issue';
  keyId: string;
  name: string | null;
  scopes: string[];
  secretEnc: string;
  maxActive: number;
}

/** Revokes one of the account's active API keys at the command's time. */
export interface RevokeApiKeyCommand {
  type: 'api_key.revoke';
  keyId: string;
}

/** Creates a webhook endpoint (role null: the free one); the secret only sealed. */
export interface CreateWebhookCommand {
  type: 'webhook.create';
  endpointId: string;
  url: string;
  role: 'primary' | 'backup' | null;
  events: string[] | null;
  secretSealed: string;
}

/** Edits a webhook endpoint (absent fields unchanged; `setEvents` says whether `events` applies); a new sealed secret rotates it. */
export interface UpdateWebhookCommand {
  type: 'webhook.update';
  endpointId: string;
  url: string | null;
  role: 'primary' | 'backup' | null;
  setEvents: boolean;
  events: string[] | null;
  isActive: boolean | null;
  secretSealed: string | null;
}

export interface DeleteWebhookCommand {
  type: 'webhook.delete';
  endpointId: string;
}

/** Adds a member with a role, or changes an existing member's role (the owner only, checked by the API). */
export interface SetMemberCommand {
  type: 'member.set';
  address: string;
  role: 'editor' | 'viewer';
}

export interface RemoveMemberCommand {
  type: 'member.remove';
  address: string;
}

/** Saves an address-book entry (a saved address gets the new label); `limit` is the limit in force when the API accepted it. */
export interface SaveAddressBookEntryCommand {
  type: 'address_book.save';
  entryId: string;
  address: string;
  label: string;
  limit: number;
}

export interface DeleteAddressBookEntryCommand {
  type: 'address_book.delete';
  entryId: string;
}

export type CommandBody =
  | SetLowBalanceAlertCommand
  | IssueApiKeyCommand | RevokeApiKeyCommand
  | CreateWebhookCommand | UpdateWebhookCommand | DeleteWebhookCommand
  | CreateAccountCommand | AdjustBalanceCommand | CommandRefusedMarker | RenameAccountCommand | AssignDepositAddressCommand | CreditDepositCommand | ReleaseDepositCommand
  | CreateOrderCommand | AllocateOrderCommand | SettleOrderCommand | CloseOrderCommand | RefundOrderCommand
  | AllocateOrdersCommand | SettleOrdersCommand
  | ConfigurePromoCommand | RedeemPromoCommand | GrantPromoCommand | ClaimDevCodeCommand | EnterDevCodeCommand
  | BatchCommand
  | SetMemberCommand | RemoveMemberCommand | SaveAddressBookEntryCommand | DeleteAddressBookEntryCommand
  | SubscriptionCommand
  | DeliverOrderCommand
  | DeskCommand;
export type CommandType = CommandBody['type'];
export type Command = CommandMeta & CommandBody;
export type CommandOf<T extends CommandType> = CommandMeta & Extract<CommandBody, { type: T }>;
