/** POST /v1/estimates (contract.md section 11): what token transfers need, and the orders that cover it. */
import type { Operation } from './operation';
import { dateTime, json, nullable, obj, ref } from './builders';

export const MAX_ESTIMATE_ITEMS = 100;
const count = { type: 'integer', minimum: 0 };

export const estimateSchemas = {
  EstimateItem: obj({
    from: ref('Address'), to: ref('Address'),
    // An integer string or an integer, up to uint256: checked by the route (JSON integers past 2^53 arrive as bigint).
    amount: { description: 'Token amount in base units: an integer string or an integer.', examples: ['25000000'] },
    token: { type: 'string', maxLength: 64, description: '`USDT` (default) or a TRC-20 contract address.' },
  }, ['from', 'to', 'amount']),
  EstimateOrder: obj({
    resource: { type: 'string', enum: ['energy', 'bandwidth'] }, amount: { type: 'integer' }, tier: ref('Tier'), receiver: ref('Address'), activate: { type: 'boolean' },
  }),
  Estimate: obj({
    from: ref('Address'), to: ref('Address'), token: ref('Address'), amount: { type: 'string' }, ok: { type: 'boolean' },
    error: nullable(obj({ code: { type: 'integer' }, slug: { type: 'string' }, message: { type: 'string' } })),
    energy_needed: count, energy_penalty: count, receiver_holds_token: { type: 'boolean' }, energy_available: count, energy_to_rent: count,
    bandwidth_needed: count, bandwidth_available: count, bandwidth_to_rent: count, sender_activated: { type: 'boolean' },
    fee_limit_sun: ref('Sun'), burn_sun_without_rental: ref('Sun'), orders: { type: 'array', items: ref('EstimateOrder') }, total_amount_sun: ref('Sun'),
  }),
};

export const estimatePaths: Record<string, Record<string, Operation>> = {
  '/v1/estimates': {
    post: {
      operationId: 'createEstimates',
      summary: 'Simulates up to 100 token transfers on the node with their real sender and amount: energy and bandwidth needed and available, the recommended fee limit, the burn without rental, and the orders that cover the shortfall at the live price.',
      tags: ['orders'], security: [{ apiKey: ['orders.read'] }, { session: [] }],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: obj({ items: { type: 'array', minItems: 1, maxItems: MAX_ESTIMATE_ITEMS, items: ref('EstimateItem') } }) } },
      },
      responses: {
        '200': json('one Estimate per item, in order', obj({
          data: { type: 'array', items: ref('Estimate') },
          chain: obj({ energy_fee_sun: ref('Sun'), bandwidth_fee_sun: ref('Sun'), block_number: { type: 'integer' }, at: dateTime }),
        })),
      },
    },
  },
};
