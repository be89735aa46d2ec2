/** The transfer desk (contract.md section 12): its public terms, and the order a confirmed payment placed. */
import type { Operation } from './operation';
import { dateTime, json, obj, ref } from './builders';

const txid = {
  name: 'txid', in: 'path' as const, required: true, schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
  description: 'The payment\'s transaction id (64 hex).',
};

export const deskSchemas = {
  TransferDesk: obj({
    network: { type: 'string', enum: ['mainnet', 'nile'] },
    address: ref('Address'),
    price_sun_per_unit: ref('Sun'),
    tier: ref('Tier'),
    duration_seconds: { type: 'integer' },
    min_sun: ref('Sun'),
    max_sun: ref('Sun'),
    confirmations_required: { type: 'integer', minimum: 1 },
    as_of: dateTime,
  }),
};

const deskExample = {
  network: 'nile', address: 'TDTTei2r7RPNBo8jKT9psi8w9uikw4Wkba', price_sun_per_unit: 70, tier: '1h', duration_seconds: 3600,
  min_sun: 1_000_000, max_sun: 500_000_000, confirmations_required: 19, as_of: '2026-12-01T10:00:00Z',
};

export const deskPaths: Record<string, Record<string, Operation>> = {
  '/v1/transfer-desk': {
    get: {
      operationId: 'getTransferDesk',
      summary: 'The desk\'s address and terms: send TRX there from any wallet (min_sun..max_sun) and floor(V / price_sun_per_unit) energy, in thousands, is delegated to the sender (or to the address written as the memo) for the tier; other amounts are returned (3048).',
      tags: ['transfer-desk'], security: [],
      responses: {
        '200': { description: 'the desk', content: { 'application/json': { schema: ref('TransferDesk'), example: deskExample } } },
      },
    },
  },
  '/v1/transfer-desk/orders/{txid}': {
    get: {
      operationId: 'getTransferDeskOrder',
      summary: 'The order a desk payment placed (source transfer), once the payment is confirmed; 404 before. A returned payment\'s order is failed with 3048 and refunded_amount_sun.',
      tags: ['transfer-desk'], security: [], parameters: [txid],
      responses: { '200': json('the payment\'s order', ref('OrderDetail')) },
    },
  },
};
