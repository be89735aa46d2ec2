/** Webhook endpoint secrets at rest: sealed with WEBHOOK_SECRET_KEY, bound to their endpoint id. */
import type { Config } from '../platform/config';
import { openSecret, sealSecret } from '../platform/secret-box';

/** Public development key, used only off mainnet when WEBHOOK_SECRET_KEY is unset (config refuses mainnet without one). */
export const DEV_WEBHOOK_SECRET_KEY = '6465762d6f6e6c792d776562686f6f6b2d7365637265742d6b65792d2d2d2d21';

export interface WebhookSecretBox {
  seal(endpointId: string, secret: string): string;
  open(endpointId: string, sealed: string): string;
}

export function webhookSecretBox(cfg: Pick<Config, 'WEBHOOK_SECRET_KEY'>): WebhookSecretBox {
  const key = cfg.WEBHOOK_SECRET_KEY ?? DEV_WEBHOOK_SECRET_KEY;
  return {
    seal: (endpointId, secret) => sealSecret(key, secret, `webhook:${endpointId}`),
    open: (endpointId, sealed) => openSecret(key, sealed, `webhook:${endpointId}`),
  };
}
