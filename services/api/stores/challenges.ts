/** Address challenges: issued, then consumed once (whatever the signature turns out to be). */
import type { Pool } from '../../platform/db/pool';

export interface StoredChallenge {
  nonce: string;
  address: string;
  purpose: string;
  message: string;
  issuedAt: number;
  expiresAt: number;
}

export async function saveChallenge(pool: Pool, c: StoredChallenge): Promise<void> {
  await pool.query(
    'INSERT INTO auth_challenges (nonce, address, purpose, message, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [c.nonce, c.address, c.purpose, c.message, new Date(c.issuedAt), new Date(c.expiresAt)],
  );
}

/** Marks the nonce used if it is live and was issued to `address`; returns its message and purpose, else null. */
export async function consumeChallenge(pool: Pool, nonce: string, address: string, now: number): Promise<{ message: string; purpose: string } | null> {
  const { rows } = await pool.query(
    `UPDATE auth_challenges SET used_at = $3
     WHERE nonce = $1 AND address = $2 AND used_at IS NULL AND expires_at > $3 RETURNING message, purpose`,
    [nonce, address, new Date(now)],
  );
  return rows[0] ? { message: rows[0].message, purpose: rows[0].purpose } : null;
}
