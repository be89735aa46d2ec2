/**
 * Proof of control of an address: a live, unused challenge nonce issued to that address, signed with
 * TIP-191 personal sign. Every failure is the one `1010 challenge_invalid`, and the nonce is consumed
 * whatever the signature turns out to be (single use). The signature is checked even when the nonce is
 * unknown, so the answer time does not tell the failures apart.
 */
import { recoverSigner } from '../../chain/address';
import type { ChallengePurpose } from '../../identity/challenge-message';
import type { Runtime } from '../../chain/clients';
import { ApiError } from '../errors';
import { consumeChallenge } from '../stores/challenges';
import { rememberProof } from './proven-ips';

export const CHALLENGE_TTL_MS = 10 * 60_000;

/** The purposes that open (or create) an account; a promo challenge never does. */
export const accountPurposes: readonly ChallengePurpose[] = ['signup', 'login', 'recovery'];

/**
 * `ip`: where the proof came from; a good proof exempts it from the address's challenge budget for a
 * while (proven-ips.ts). `purposes`: what the route accepts. A challenge issued for another purpose (a sign-in nonce sent to the
 * promo redeem, a promo nonce sent to POST /v1/session) is refused like any other failure, and consumed.
 */
export async function proveAddress(
  rt: Runtime, ip: string | null, address: string, nonce: string, signature: string, purposes: readonly ChallengePurpose[],
): Promise<void> {
  const challenge = await consumeChallenge(rt.pool, nonce, address, rt.clock.now());
  const signer = recoverSigner(challenge?.message ?? `unknown nonce ${nonce}`, signature);
  if (challenge === null || signer !== address || !purposes.includes(challenge.purpose as ChallengePurpose)) throw new ApiError('challenge_invalid');
  await rememberProof(rt, address, ip);
}
