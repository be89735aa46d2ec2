/**
 * Every error code the service can answer, declared once (spec section 7 and contract.md section 1).
 * Domain code returns `DomainError`s by slug; the API renders them into the error envelope.
 */
export const errorCatalog = {
  authentication_required: { code: 1001, http: 401, message: 'Credentials are required.' },
  signature_invalid: { code: 1002, http: 401, message: 'The request signature was not accepted.' },
  challenge_invalid: { code: 1010, http: 401, message: 'The challenge is invalid.' },
  bootstrap_token_expired: { code: 1011, http: 401, message: 'The bootstrap token has expired.' },
  bootstrap_token_invalid: { code: 1012, http: 401, message: 'The bootstrap token is not valid for this operation.' },
  session_expired: { code: 1013, http: 401, message: 'No active session.' },
  csrf_token_invalid: { code: 1014, http: 403, message: 'The X-CSRF-Token header is missing or wrong.' },
  scope_missing: { code: 1015, http: 403, message: 'The API key lacks the scope this call needs.' },
  role_forbidden: { code: 1016, http: 403, message: 'Your role does not allow this.' },
  rate_limited: { code: 1020, http: 429, message: 'Too many requests.' },
  invalid_request: { code: 2000, http: 400, message: 'The request is malformed.' },
  invalid_range: { code: 2001, http: 400, message: '`to` must be after `from`.' },
  tier_unavailable: { code: 2003, http: 422, message: 'This tier is not available.' },
  batch_too_large: { code: 2004, http: 422, message: 'Too many receivers in one batch.' },
  idempotency_key_required: { code: 2005, http: 400, message: 'Send client_batch_id or an Idempotency-Key header.' },
  duplicate_receiver: { code: 2006, http: 422, message: 'The same receiver appears twice in the batch.' },
  not_found: { code: 3001, http: 404, message: 'Not found.' },
  order_not_cancellable: { code: 3002, http: 409, message: 'The receivers were already picked up.' },
  receiver_not_activated: { code: 3004, http: 409, message: 'The receiver is not activated and activate is false.' },
  price_above_limit: { code: 3006, http: 409, message: 'The live price exceeds max_price_sun.' },
  nothing_to_reclaim: { code: 3007, http: 409, message: 'Nothing to reclaim.' },
  reclaim_unavailable: { code: 3008, http: 409, message: 'Orders filled from a third-party provider cannot be reclaimed.' },
  idempotency_conflict: { code: 3010, http: 409, message: 'The same idempotency key was used with a different body.' },
  quote_mismatch: { code: 3011, http: 422, message: 'The body differs from the quote.' },
  quote_expired: { code: 3012, http: 409, message: 'The quote has expired or was already used.' },
  address_book_full: { code: 3019, http: 409, message: 'The address book is full.' },
  webhook_url_rejected: { code: 3020, http: 422, message: 'The webhook URL was rejected.' },
  webhook_limit_reached: { code: 3021, http: 409, message: 'Both webhook roles are taken.' },
  api_key_limit_reached: { code: 3022, http: 409, message: 'Ten active API keys already exist.' },
  subscription_limit: { code: 3023, http: 409, message: '100 subscriptions that are not ended already exist.' },
  subscription_exists: { code: 3024, http: 409, message: 'This receiver and resource already have a subscription.' },
  promo_not_eligible: { code: 3038, http: 409, message: 'This address is not eligible for the promo.' },
  promo_already_redeemed: { code: 3039, http: 409, message: 'This address already claimed the promo.' },
  promo_redeem_unavailable: { code: 3040, http: 409, message: 'The promo is not available.' },
  insufficient_funds: { code: 4001, http: 402, message: 'The balance cannot cover this.' },
  amount_out_of_range: { code: 4002, http: 422, message: 'The amount is out of range.' },
  internal_error: { code: 5000, http: 500, message: 'Internal error.' },
  delegation_failed: { code: 5002, http: 502, message: 'The delegation was not confirmed in time.' },
  chain_unavailable: { code: 5003, http: 503, message: 'Chain data cannot be read.' },
  service_unavailable: { code: 5030, http: 503, message: 'The request could not be completed in time; nothing was stored or charged.' },
  order_status_conflict: { code: 3045, http: 409, message: "The order's status does not allow this." },
  // Contract section 11: an Estimate item's `error` (the answer itself is 200), never an answer's status.
  transfer_would_fail: { code: 3046, http: 200, message: 'The transfer would fail.' },
  nothing_to_rent: { code: 3047, http: 409, message: 'The sender already has what the transfer needs.' },
  // Contract section 12: a returned desk payment's order failure (no request answers it: `http` 200 as 3046's).
  transfer_not_accepted: { code: 3048, http: 200, message: 'The payment was returned.' },
  supply_unavailable: { code: 5004, http: 503, message: 'No stake could be allocated to the order within the wait window.' },
  activation_failed: { code: 5005, http: 502, message: 'The receiver could not be activated.' },
} as const;

export type ErrorSlug = keyof typeof errorCatalog;

export interface DomainError {
  slug: ErrorSlug;
  message?: string;
  details?: Record<string, unknown> | null;
}

export function domainError(slug: ErrorSlug, message?: string, details?: Record<string, unknown> | null): DomainError {
  return { slug, message, details: details ?? null };
}
