/**
 * Secrets the service must read back later (API-key and webhook signing secrets), stored encrypted with
 * AES-256-GCM under a 32-byte key from config. During a key rotation a value may be sealed under the
 * previous key: `openWithAny` tries the readable keys in order (GCM's tag tells a wrong key at once). The context (associated data, e.g. `webhook:<endpoint id>`) binds a
 * sealed value to its row: copied into another row, it no longer opens.
 * Stored form: `v1.` + base64url(iv 12 bytes | tag 16 bytes | ciphertext).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/** GCM's full tag. Node accepts a shorter tag at open unless told its length: a 4-byte tag is 2^32 guesses. */
const TAG_BYTES = 16;
const gcm = { authTagLength: TAG_BYTES } as const;

function keyOf(keyHex: string): Buffer {
  const key = Buffer.from(keyHex, 'hex');
  if (key.length !== 32) throw new Error('a secrets key is 32 bytes (64 hex characters)');
  return key;
}

export function sealSecret(keyHex: string, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(keyHex), iv, gcm);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

export function openSecret(keyHex: string, sealed: string, context: string): string {
  const [version, payload] = sealed.split('.');
  if (version !== VERSION || !payload) throw new Error('unknown sealed secret format');
  const raw = Buffer.from(payload, 'base64url');
  if (raw.length < 12 + TAG_BYTES) throw new Error('sealed secret too short');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(keyHex), raw.subarray(0, 12), gcm);
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** Opens with the first of `keys` that fits; `keyIndex` 0 means sealed under the current key. */
export function openWithAny(keys: readonly string[], sealed: string, context: string): { plaintext: string; keyIndex: number } {
  for (let i = 0; i < keys.length; i++) {
    try {
      return { plaintext: openSecret(keys[i], sealed, context), keyIndex: i };
    } catch {
      // Not this key (or not a sealed value): try the next.
    }
  }
  throw new Error('the sealed secret opens with none of the configured keys');
}

/**
 * `open` remembered per (owner id, sealed value), so each sealed secret is opened (AES-GCM) once per process
 * rather than per use. The memo key is the sealed text: a re-sealed or rotated secret misses and is opened
 * anew. Bounded: past `max` entries the oldest goes first.
 */
export function openedOnce(open: (id: string, sealed: string) => string, max = 10_000): (id: string, sealed: string) => string {
  const opened = new Map<string, string>();
  return (id, sealed) => {
    const memo = `${id}|${sealed}`;
    let secret = opened.get(memo);
    if (secret === undefined) {
      secret = open(id, sealed);
      if (opened.size >= max) opened.delete(opened.keys().next().value as string);
      opened.set(memo, secret);
    }
    return secret;
  };
}
