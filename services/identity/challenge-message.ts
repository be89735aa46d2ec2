/**
 * The text a wallet signs for an address challenge: human-readable, bound to the service's domain, and
 * carrying purpose, address, nonce and expiry. Clients sign it verbatim (TIP-191 personal sign).
 */
export type ChallengePurpose = 'signup' | 'login' | 'recovery' | 'promo_redeem' | 'promo_dev_code';

export interface ChallengeFields {
  domain: string;
  network: 'mainnet' | 'nile';
  purpose: ChallengePurpose;
  address: string;
  nonce: string;
  issuedAt: string;
  expiresAt: string;
}

const purposeText: Record<ChallengePurpose, string> = {
  signup: 'create an account',
  login: 'sign in',
  recovery: 'recover your account',
  promo_redeem: 'claim the promo energy grant',
  promo_dev_code: 'claim your test-network promo code',
};

export function challengeMessage(f: ChallengeFields): string {
  return [
    `${f.domain} asks you to sign with your TRON address to ${purposeText[f.purpose]}.`,
    '',
    `Domain: ${f.domain}`,
    `Network: ${f.network}`,
    `Purpose: ${f.purpose}`,
    `Address: ${f.address}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${f.issuedAt}`,
    `Expiration Time: ${f.expiresAt}`,
    '',
    'Signing costs nothing and sends no transaction.',
  ].join('\n');
}
