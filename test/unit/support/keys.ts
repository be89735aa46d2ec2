/** Fresh secret keys for a unit test's configuration (the repository holds none). */
import { randomBytes } from 'node:crypto';

export function freshKeys(): { API_KEY_ENCRYPTION_KEY: string; WEBHOOK_SECRET_KEY: string } {
  return { API_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') };
}
