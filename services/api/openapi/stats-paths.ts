/** GET /v1/account/stats (API key orders.read, or session viewer and above): AccountStats, spec section 2. */
import type { Operation } from './operation';
import { ref, dateTime } from './builders';

const obj = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties });
const count = { type: 'integer', minimum: 0 };

export const statsSchemas = {
  AccountStats: obj({
    from: dateTime, to: dateTime, requested_from: dateTime, clamped: { type: 'boolean' }, retention_months: { type: 'integer' },
    bucket: { type: 'string', enum: ['day'] }, utc_offset_minutes: { type: 'integer' },
    totals: obj({ orders: count, energy: count, spent_sun: ref('Sun'), avg_price_sun_per_65k: { type: ['integer', 'null'] } }),
    series: { type: 'array', items: obj({ date: { type: 'string', format: 'date' }, orders: count, energy: count, spent_sun: ref('Sun') }) },
    weekday_hour: {
      type: 'array', minItems: 7, maxItems: 7, description: 'Order counts; row d is ISO weekday d+1 (Monday first), column h the local hour.',
      items: { type: 'array', minItems: 24, maxItems: 24, items: count },
    },
    top_receivers: {
      type: 'array', maxItems: 10, description: 'At most ten receivers, most orders first (ties: energy, spent, address).',
      items: obj({ receiver: { type: 'string' }, orders: count, energy: count, spent_sun: ref('Sun') }),
    },
  }),
};

export const statsPaths: Record<string, Record<string, Operation>> = {
  '/v1/account/stats': {
    get: {
      operationId: 'getAccountStats',
      summary: 'Orders, energy and spend per local day, weekday x hour and top receivers, from the order-events projection; format=csv gives the series.',
      tags: ['account'], security: [{ apiKey: ['orders.read'] }, { session: [] }],
      parameters: [
        { name: 'from', in: 'query', schema: dateTime, description: 'Default: `to` minus 30 days; older than 13 months is clamped.' },
        { name: 'to', in: 'query', schema: dateTime, description: 'Default: now; must be after `from` (2001).' },
        { name: 'bucket', in: 'query', schema: { type: 'string', enum: ['day'], default: 'day' } },
        { name: 'utc_offset_minutes', in: 'query', schema: { type: 'integer', minimum: -720, maximum: 840, default: 0 } },
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'csv'], default: 'json' } },
      ],
      responses: {
        '200': {
          description: 'AccountStats, or with format=csv the series as text/csv (date, orders, energy, spent_sun)',
          content: { 'application/json': { schema: ref('AccountStats') }, 'text/csv': { schema: { type: 'string' } } },
        },
      },
    },
  },
};
