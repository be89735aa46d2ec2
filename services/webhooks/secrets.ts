/** Webhook endpoint secrets at rest: sealed with WEBHOOK_SECRET_KEY, bound to their endpoint id. */
import type { Config } from '../platform/config';
import { openWithAny, sealSecret } from '../platform/secret-box';

export interface WebhookSecretBox {
  seal(endpointId: string, secret: string): string;
  open(endpointId: string, sealed: string): string;
}

export const webhookContext = (endpointId: string) => `webhook:${endpointId}`;

/** Seals under the current key; opens with any readable key (the previous one during a rotation). */
export function webhookSecretBox(cfg: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'WEBHOOK_DECRYPTION_KEYS'>): WebhookSecretBox {
  return {
    seal: (endpointId, secret) => sealSecret(cfg.WEBHOOK_SECRET_KEY, secret, webhookContext(endpointId)),
    open: (endpointId, sealed) => openWithAny(cfg.WEBHOOK_DECRYPTION_KEYS, sealed, webhookContext(endpointId)).plaintext,
  };
}
