/**
 * The error codes each operation can answer, declared once here (issue 33: "error codes and slugs as enums
 * per operation"); the codes themselves live in services/domain/errors.ts. The document's error answers
 * (error-responses.ts) are made from this table and nothing else, so a generated client switches on exactly
 * what the operation can send.
 *
 * An operation's codes are what the request passes through, in order:
 * - every operation (but the probes): 2000 (the body or the validator refuses it, or the processor cannot
 *   store a value), 5000 (an unhandled failure), 5030 (admission sheds it, the database or the log is away);
 * - the credentials (credentialErrors below, from the operation's `security`, as requireAuth answers them);
 * - the route's own codes, and the codes of the processor's handlers for the commands it submits: the table.
 * test/unit/openapi/operation-errors.test.ts holds the table against the routes' code; every in-process API
 * of the integration tests records an error answered outside it (error-responses.ts `undeclaredAnswers`),
 * and test/integration/fuzz/openapi-hostile.test.ts checks each answer against the served document.
 */
import type { ErrorSlug } from '../../domain/errors';

/** What every operation outside the probes can answer. */
export const BASE_ERRORS: readonly ErrorSlug[] = ['invalid_request', 'internal_error', 'service_unavailable'];

/**
 * The load balancer's and scraper's probes: never shed, no body, no credentials; /metrics answers 5030 when
 * the registry cannot be gathered and 3001 on the API's port when the metrics have a listener of their own
 * (METRICS_PORT), /readyz its own not-ready body (not the envelope).
 */
export const PROBE_ERRORS: Readonly<Record<string, readonly ErrorSlug[]>> = { healthz: [], readyz: [], metrics: ['not_found', 'service_unavailable', 'internal_error'] };

type Security = Array<Record<string, string[]>> | undefined;
const unsafeMethods = new Set(['post', 'patch', 'put', 'delete']);

/**
 * What requireAuth (services/api/auth/require-auth.ts) can answer for an operation of this security, whatever
 * credential the caller presents: an API key is verified (1002) before its scope (1015: none opens a
 * session-only route), a bootstrap token on a route it does not open is 1012, a session on a route without
 * sessions 1001; 1020 when a budget (the caller's, the account's, the IP's credential misses) is spent.
 * An operation that also takes no credentials (`{}` among its requirements) checks what it is sent itself:
 * its credential codes are in the table.
 */
export function credentialErrors(security: Security, method: string): ErrorSlug[] {
  if (!security || security.length === 0 || security.some((r) => Object.keys(r).length === 0)) return [];
  const schemes = new Map(security.flatMap((r) => Object.entries(r)));
  const out: ErrorSlug[] = ['authentication_required', 'signature_invalid', 'bootstrap_token_invalid', 'rate_limited'];
  if (schemes.has('bootstrapToken')) out.push('bootstrap_token_expired');
  if (schemes.has('session')) out.push('session_expired');
  if (schemes.has('session') && unsafeMethods.has(method)) out.push('csrf_token_invalid');
  // A key of any scope opens a route whose apiKey requirement names none; every other route refuses some key.
  if (!(schemes.has('apiKey') && schemes.get('apiKey')!.length === 0)) out.push('scope_missing');
  return out;
}

/** A dashboard session below the route's minimum role (editor or owner; viewer routes never refuse a role). */
const ROLE: ErrorSlug = 'role_forbidden';
/** A signed challenge proved (auth/challenge-proof.ts) under the IP's proofs budget. */
const PROOF: ErrorSlug[] = ['challenge_invalid', 'rate_limited'];
/** priceFor (domain/pricing.ts): the tier sold for the resource, the amount within its row. */
const PRICED: ErrorSlug[] = ['tier_unavailable', 'amount_out_of_range'];
/** The promo's eligibility (routes/promo.ts checkEligible): in the drop log, which the chain must answer. */
const PROMO_ELIGIBLE: ErrorSlug[] = ['promo_redeem_unavailable', 'promo_not_eligible', 'chain_unavailable'];
/** A plan's day placed as an order by the processor (subscriptions/plan-handlers.ts placePlanDay: createOrder). */
const PLAN_DAY: ErrorSlug[] = ['not_found', 'idempotency_conflict', 'receiver_not_activated', 'price_above_limit', 'insufficient_funds'];

/** Per operation id: its own codes beyond BASE_ERRORS and credentialErrors. */
export const operationErrors = {
  // platform
  openapi: ['rate_limited'],
  // signup and sessions
  createChallenge: ['rate_limited'],
  verifyChallenge: PROOF,
  // Credentials checked by the route itself: a bootstrap token (of this address) or a proof of the address.
  createAccount: ['authentication_required', 'bootstrap_token_invalid', 'bootstrap_token_expired', ...PROOF],
  getBootstrapDepositAddress: ['not_found'],
  getAccount: ['not_found'],
  patchAccount: [ROLE, 'not_found'],
  listDepositAddresses: ['not_found'],
  getSession: [],
  createSession: PROOF,
  exchangeWalletTicket: PROOF,
  deleteSession: [],
  refreshSession: [],
  revokeAllSessions: [],
  sessionHistory: [],
  listMembers: ['not_found'],
  addMember: [ROLE, 'not_found'],
  removeMember: [ROLE, 'not_found'],
  createApiKey: [ROLE, 'not_found', 'api_key_limit_reached'],
  listApiKeys: [],
  revokeApiKey: [ROLE, 'not_found'],
  listAddressBook: [],
  saveAddressBookEntry: [ROLE, 'not_found', 'address_book_full'],
  deleteAddressBookEntry: [ROLE, 'not_found'],
  // balance, ledger, stats
  getBalance: ['not_found'],
  listLedger: [],
  getAccountStats: ['invalid_range'],
  // orders
  getPrices: ['rate_limited'],
  createQuote: [...PRICED, 'chain_unavailable'],
  listOrders: [],
  createOrder: [
    ROLE, ...PRICED, 'chain_unavailable', 'quote_expired', 'quote_mismatch',
    // the processor's createOrder (domain/orders/handlers.ts)
    'not_found', 'idempotency_conflict', 'receiver_not_activated', 'nothing_to_rent', 'price_above_limit', 'insufficient_funds',
  ],
  getOrder: ['not_found'],
  reclaimOrder: [ROLE, 'not_found', 'idempotency_conflict', 'reclaim_unavailable', 'nothing_to_reclaim', 'order_status_conflict'],
  createEstimates: ['chain_unavailable'],
  // batches
  listBatches: [],
  createBatch: [ROLE, 'idempotency_key_required', 'batch_too_large', 'duplicate_receiver', ...PRICED, 'not_found', 'idempotency_conflict'],
  getBatch: ['not_found'],
  cancelBatch: [ROLE, 'not_found', 'order_not_cancellable'],
  // subscriptions (API keys only: no role)
  listSubscriptions: [],
  createSubscription: [...PRICED, 'chain_unavailable', 'subscription_limit', 'subscription_exists', ...PLAN_DAY],
  getSubscription: ['not_found'],
  updateSubscription: [...PRICED, 'chain_unavailable', ...PLAN_DAY],
  deleteSubscription: ['not_found'],
  // webhooks
  listWebhooks: [],
  createWebhook: [ROLE, 'webhook_url_rejected', 'webhook_limit_reached', 'not_found'],
  getWebhook: ['not_found'],
  updateWebhook: [ROLE, 'webhook_url_rejected', 'not_found'],
  deleteWebhook: [ROLE, 'not_found'],
  rotateWebhookSecret: [ROLE, 'not_found'],
  testWebhook: [ROLE, 'not_found'],
  listWebhookDeliveries: ['not_found'],
  // promo
  getPromo: ['rate_limited'],
  createPromoRedeemChallenge: ['rate_limited', 'promo_already_redeemed', ...PROMO_ELIGIBLE],
  redeemPromo: [...PROOF, 'promo_already_redeemed', ...PROMO_ELIGIBLE],
  createPromoDevChallenge: ['rate_limited', ...PROMO_ELIGIBLE],
  claimPromoDevCode: [...PROOF, ...PROMO_ELIGIBLE],
  enterPromoCode: [ROLE, 'not_found', 'promo_already_redeemed', 'promo_redeem_unavailable'],
  getPromoRedemption: ['rate_limited', 'not_found'],
} as const satisfies Record<string, readonly ErrorSlug[]>;

export type TabledOperation = keyof typeof operationErrors;

/** Every code the operation declares (no duplicates, in the order above), or undefined for an unknown id. */
export function declaredErrors(operationId: string, security: Security, method: string): ErrorSlug[] | undefined {
  if (operationId in PROBE_ERRORS) return [...PROBE_ERRORS[operationId]];
  const own = (operationErrors as Record<string, readonly ErrorSlug[]>)[operationId];
  if (!own) return undefined;
  return [...new Set([...BASE_ERRORS, ...credentialErrors(security, method.toLowerCase()), ...own])];
}
