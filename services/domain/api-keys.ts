/**
 * API keys as processor state: issued and revoked by commands on the log, so a restore brings them back.
 * The secret travels only sealed (AES-GCM under API_KEY_ENCRYPTION_KEY, bound to the key id); the log,
 * the processor and a restore never see it in clear. `last_used_at` stays off the log (API bookkeeping).
 */
export interface ApiKey {
  id: string;
  accountId: string;
  name: string | null;
  scopes: string[];
  secretEnc: string;
  createdAt: number;
  revokedAt: number | null;
}

/** What an API-key command may read: the account's keys as of the command. */
export interface ApiKeyView {
  byId(id: string): ApiKey | undefined;
  activeOf(accountId: string): ApiKey[];
}
