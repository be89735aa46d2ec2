/** Schemas every area refers to as #/components/schemas/<name>. */
import { errorSchemas } from './error-schemas';

export const sharedSchemas = {
  ...errorSchemas,
  Address: { type: 'string', pattern: '^T[1-9A-HJ-NP-Za-km-z]{33}$', description: 'Base58Check TRON address.' },
  Sun: { type: 'integer', format: 'int64', description: 'int64 SUN (1 TRX = 1,000,000 SUN); may exceed 2^53: parse losslessly.', examples: [65000000] },
} as const;
