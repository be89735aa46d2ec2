/**
 * Wallet tickets (PromoRedeemResult.wallet_ticket): the promo claim's checked signature, usable once
 * within ten minutes to open a dashboard session, so a claimer signs once. Kept in Redis by the hash of
 * the token only; GETDEL takes it atomically, so two exchanges of one ticket cannot both succeed.
 */
import { newToken, tokenHash } from '../../identity/request-signing';
import type { Runtime } from '../../chain/clients';

export const WALLET_TICKET_TTL_MS = 10 * 60_000;

const keyOf = (rt: Runtime, token: string) => `${rt.cfg.topicPrefix}wallet-ticket:${tokenHash(token)}`;

export async function issueWalletTicket(rt: Runtime, address: string): Promise<{ token: string; expiresAt: number }> {
  const token = newToken('wtk_');
  await rt.redis.set(keyOf(rt, token), address, 'PX', WALLET_TICKET_TTL_MS);
  return { token, expiresAt: rt.clock.now() + WALLET_TICKET_TTL_MS };
}

/** The ticket's address, once; null when unknown, expired or already taken. */
export async function takeWalletTicket(rt: Runtime, token: unknown): Promise<string | null> {
  if (typeof token !== 'string' || !token.startsWith('wtk_')) return null;
  return rt.redis.getdel(keyOf(rt, token));
}
