/** Promo (spec section 4, Promo): public reads, the redeem challenge and the signed claim. */
import type { Operation } from './operation';
import { ref, json, obj, nullable, dateTime } from './builders';

const body = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const redemption = {
  address: ref('Address'), method: { type: 'string', enum: ['signature', 'forward'] }, redeemed_at: dateTime,
  status: { type: 'string', enum: ['granting', 'delegated', 'failed'] }, energy: { type: 'integer' }, expires_at: nullable(dateTime),
};
const signed = { address: ref('Address'), nonce: { type: 'string', maxLength: 128 }, signature: { type: 'string', maxLength: 200 } };

export const promoSchemas = {
  Promo: obj({
    network: { type: 'string', enum: ['mainnet', 'nile'] },
    state: { type: 'string', enum: ['active', 'cap_reached_today', 'not_started', 'ended', 'off'] },
    starts_at: nullable(dateTime), ends_at: nullable(dateTime), cap_per_day: { type: ['integer', 'null'] }, left_today: { type: ['integer', 'null'] },
    resets_at: nullable(dateTime),
    grant: nullable(obj({ resource: { type: 'string', enum: ['energy'] }, amount: { type: 'integer' }, duration_seconds: { type: 'integer' } })),
    token: nullable(obj({ id: { type: 'string' }, name: { type: 'string' } })),
    forward_address: { type: ['string', 'null'] },
  }),
  PromoRedemption: obj(redemption),
  PromoDevCode: obj({
    code: { type: 'string' }, fee_pct: { type: 'number' }, duration_days: { type: 'integer' }, activate_by: nullable(dateTime), used: { type: 'boolean' },
  }),
  PromoRedeemResult: obj({
    ...redemption, has_account: { type: 'boolean' }, wallet_ticket: obj({ token: { type: 'string' }, expires_at: dateTime }),
  }),
};

export const promoPaths: Record<string, Record<string, Operation>> = {
  '/v1/promo': {
    get: {
      operationId: 'getPromo', summary: "The network's promo and its state (cached 15 s).", tags: ['promo'], security: [],
      responses: { '200': json('promo', ref('Promo')) },
    },
  },
  '/v1/promo/redeem/challenge': {
    post: {
      operationId: 'createPromoRedeemChallenge', summary: 'Challenge (purpose promo_redeem) for an eligible address.', tags: ['promo'], security: [],
      requestBody: body(obj({ address: ref('Address') })),
      responses: { '201': json('challenge', ref('AccountChallenge')) },
    },
  },
  '/v1/promo/redeem': {
    post: {
      operationId: 'redeemPromo', summary: 'Claim the grant with the signed challenge; one grant per address.', tags: ['promo'], security: [],
      requestBody: body(obj(signed)),
      responses: { '201': json('claim accepted', ref('PromoRedeemResult')) },
    },
  },
  '/v1/promo/dev/challenge': {
    post: {
      operationId: 'createPromoDevChallenge', summary: 'Challenge (purpose promo_dev_code) for a wallet of the test-network drop.', tags: ['promo'], security: [],
      requestBody: body(obj({ address: ref('Address') })),
      responses: { '201': json('challenge', ref('AccountChallenge')) },
    },
  },
  '/v1/promo/dev/claim': {
    post: {
      operationId: 'claimPromoDevCode', summary: "The wallet's personal code: 201 issued now, 200 the same code later.", tags: ['promo'], security: [],
      requestBody: body(obj(signed)),
      responses: {
        '200': json('the code issued earlier', ref('PromoDevCode')), '201': json('code issued', ref('PromoDevCode')),
      },
    },
  },
  '/v1/account/promo': {
    post: {
      operationId: 'enterPromoCode', summary: 'Enter a test-network promo code (single use, by activate_by).', tags: ['promo'],
      security: [{ session: [] }, { apiKey: ['orders.write'] }],
      requestBody: body(obj({ code: { type: 'string', minLength: 1, maxLength: 64 } })),
      responses: {
        '200': json('code entered', obj({
          code: { type: 'string' }, fee_pct: { type: 'number' }, duration_days: { type: 'integer' }, activate_by: nullable(dateTime), used: { type: 'boolean' },
          account_id: { type: 'string' }, entered_at: dateTime, active_until: dateTime,
        })),
      },
    },
  },
  '/v1/session/wallet-ticket': {
    post: {
      operationId: 'exchangeWalletTicket', summary: "A promo claim's wallet ticket (once, within ten minutes) for a dashboard session.", tags: ['session'], security: [],
      requestBody: body(obj({ token: { type: 'string', maxLength: 128 } })),
      responses: { '201': json('session', ref('Session')) },
    },
  },
  '/v1/promo/redemptions/{address}': {
    get: {
      operationId: 'getPromoRedemption', summary: "An address's redemption.", tags: ['promo'], security: [],
      parameters: [{ name: 'address', in: 'path', required: true, schema: ref('Address') }],
      responses: { '200': json('redemption', ref('PromoRedemption')) },
    },
  },
};
