/**
 * Per-process memo of opened API-key secrets and of when a key's last use was written. The key row comes
 * from key-cache.ts (kept in memory, invalidated at once on every instance); the AES-GCM open of the same
 * sealed value, and the same-second `last_used_at` write, are not repeated.
 * Both are bounded (a miss costs one decrypt or one write): opened secrets drop the oldest, the touch times
 * are cleared when full.
 */
import { openedOnce, openSecret, openWithAny, sealSecret } from '../../platform/secret-box';
import { apiKeyContext } from '../stores/api-keys';

const MAX_ENTRIES = 10_000;
/** `last_used_at` is written at most this often per key (ms); it is a hint for the dashboard, not a log. */
export const TOUCH_EVERY_MS = 1_000;

/** Per set of decryption keys (one per configuration), so a secret is only ever returned to a holder of its key. */
const openersByKeys = new WeakMap<readonly string[], (keyId: string, sealed: string) => string>();
const touched = new Map<string, number>();

/**
 * The secret sealed as `sealed` for key `keyId`, opened with whichever configured key seals it (the
 * previous one during a rotation); the cache key is the sealed text, so a re-sealed row misses.
 */
export function openKeySecret(decryptionKeys: readonly string[], keyId: string, sealed: string): string {
  let open = openersByKeys.get(decryptionKeys);
  if (!open) {
    open = openedOnce((id, text) => openWithAny(decryptionKeys, text, apiKeyContext(id)).plaintext, MAX_ENTRIES);
    openersByKeys.set(decryptionKeys, open);
  }
  return open(keyId, sealed);
}

/** True when this process should write the key's `last_used_at` now (first use, or a second since the last write). */
export function touchDue(keyId: string, now: number): boolean {
  const last = touched.get(keyId);
  if (last !== undefined && now - last < TOUCH_EVERY_MS) return false;
  if (touched.size >= MAX_ENTRIES) touched.clear();
  touched.set(keyId, now);
  return true;
}

/**
 * Seals and opens a probe under each configured key (start-up): a key that cannot is found before a
 * caller's request is, and the first signed request does not load the cipher on its path (CPU a fresh
 * process's first POST paid; figures in bench/README.md, "POST /v1/batches: a fresh process's first POSTs").
 */
export function checkSecretKeys(decryptionKeys: readonly string[]): void {
  for (const key of decryptionKeys) openSecret(key, sealSecret(key, 'probe', 'start-up'), 'start-up');
}
