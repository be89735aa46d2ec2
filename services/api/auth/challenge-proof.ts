/**
 * Proof of control of an address: a live, unused challenge nonce issued to that address, signed with
 * TIP-191 personal sign. Every failure is the one `1010 challenge_invalid`, and the nonce is consumed
 * whatever the signature turns out to be (single use). The signature is checked even when the nonce is
 * unknown, so the answer time does not tell the failures apart.
 */
import { recoverSigner } from '../../identity/address';
import type { Runtime } from '../../platform/runtime';
import { ApiError } from '../errors';
import { consumeChallenge } from '../stores/challenges';

export const CHALLENGE_TTL_MS = 10 * 60_000;

export async function proveAddress(rt: Runtime, address: string, nonce: string, signature: string): Promise<void> {
  const message = await consumeChallenge(rt.pool, nonce, address, rt.clock.now());
  const signer = recoverSigner(message ?? `unknown nonce ${nonce}`, signature);
  if (message === null || signer !== address) throw new ApiError('challenge_invalid');
}
