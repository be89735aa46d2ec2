/** Schemas every area refers to as #/components/schemas/<name>. */
export const sharedSchemas = {
  ErrorEnvelope: {
    type: 'object',
    required: ['error', 'request_id'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'slug', 'message', 'details'],
        properties: {
          code: { type: 'integer' },
          slug: { type: 'string' },
          message: { type: 'string' },
          details: { type: ['object', 'null'] },
        },
      },
      request_id: { type: ['string', 'null'] },
    },
  },
  Address: { type: 'string', pattern: '^T[1-9A-HJ-NP-Za-km-z]{33}$', description: 'Base58Check TRON address.' },
  Sun: { type: 'integer', description: 'int64 SUN (1 TRX = 1,000,000 SUN).' },
} as const;

export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});
