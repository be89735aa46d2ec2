/** Balance and ledger reads: GET /v1/balance (API key, balance.read), GET /v1/ledger (session, viewer or above). */
import type { Operation } from './operation';
import { ref, json, obj, dateTime } from './builders';

const ledgerKinds = ['deposit', 'order_charge', 'order_refund', 'referral_payout', 'subscription_fee', 'subscription_usage', 'reserve_fee', 'invoice', 'withdrawal', 'adjustment'];

export const ledgerSchemas = {
  Balance: obj({
    balance_sun: ref('Sun'), balance_usdt: { type: 'integer' }, reserved_sun: ref('Sun'), available_sun: ref('Sun'), as_of: dateTime,
  }, ['balance_sun', 'available_sun', 'as_of']),
  LedgerDeposit: obj({
    txid: { type: ['string', 'null'] }, sender: { type: ['string', 'null'] }, block_number: { type: ['integer', 'null'] },
    status: { type: 'string', enum: ['credited', 'pending_rate', 'held_below_min', 'held_for_review'] },
    confirmations_required: { type: 'integer' }, asset: { type: 'string', enum: ['TRX', 'USDT'] },
    usdt_amount: { type: ['string', 'null'] }, rate: { type: ['string', 'null'] }, rate_source: { type: ['string', 'null'] },
    spread_bps: { type: ['integer', 'null'] },
  }, ['txid', 'sender', 'block_number', 'status', 'confirmations_required']),
  LedgerEntry: obj({
    id: { type: 'string' }, kind: { type: 'string', enum: ledgerKinds }, amount_sun: ref('Sun'), amount_usdt: { type: 'integer' },
    order_id: { type: ['string', 'null'] }, deposit: { oneOf: [ref('LedgerDeposit'), { type: 'null' }] }, created_at: dateTime,
  }),
};

export const ledgerPaths: Record<string, Record<string, Operation>> = {
  '/v1/balance': {
    get: {
      operationId: 'getBalance', summary: 'Balance, reserved and available SUN (read budget).', tags: ['account'],
      security: [{ apiKey: ['balance.read'] }, { session: [] }],
      responses: { '200': json('balance', ref('Balance')) },
    },
  },
  '/v1/ledger': {
    get: {
      operationId: 'listLedger',
      summary: 'Ledger journals, newest first; the first page also shows USDT deposits seen but not credited.',
      tags: ['account'], security: [{ session: [] }],
      parameters: [
        { name: 'kind', in: 'query', schema: { type: 'string', enum: ['deposit', 'all'], default: 'all' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 } },
      ],
      responses: {
        '200': json('ledger page', obj({ data: { type: 'array', items: ref('LedgerEntry') }, next_cursor: { type: ['string', 'null'] } })),
      },
    },
  },
};
