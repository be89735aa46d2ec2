/**
 * `./bin/ops rotate-encryption-key`: re-seals every stored secret (API-key secrets, webhook endpoint
 * secrets) under the current key. The rotation, with no moment where a secret cannot be read:
 *   1. start every process with the new key as API_KEY_ENCRYPTION_KEY / WEBHOOK_SECRET_KEY and the old
 *      one as API_KEY_ENCRYPTION_KEY_PREVIOUS / WEBHOOK_SECRET_KEY_PREVIOUS (both open, new seals use the new);
 *   2. run this command (a row sealed by a process still on the old key during the run is re-sealed by
 *      running the command again: it reports what is left);
 *   3. drop the *_PREVIOUS variables.
 * Each row is replaced only if it still holds the value read (compare-and-set), so a concurrent rotate of
 * a webhook secret is never overwritten.
 */
import type { Config } from '../platform/config';
import type { Pool } from '../platform/db/pool';
import { openWithAny, sealSecret } from '../platform/secret-box';
import { apiKeyContext } from '../api/stores/api-keys';
import { webhookContext } from '../webhooks/secrets';
import type { Progress } from '../platform/progress';

export interface SealedTableReport {
  table: string;
  /** Rows already under the current key. */
  current: number;
  /** Rows re-sealed now. */
  resealed: number;
  /** Rows no configured key opens (ids), left as they are. */
  unreadable: string[];
}

interface SealedColumn {
  table: string;
  column: string;
  key: (cfg: Config) => string;
  readable: (cfg: Config) => string[];
  context: (id: string) => string;
}

const sealedColumns: SealedColumn[] = [
  { table: 'api_keys', column: 'secret_enc', key: (c) => c.API_KEY_ENCRYPTION_KEY, readable: (c) => c.API_KEY_DECRYPTION_KEYS, context: apiKeyContext },
  { table: 'webhook_endpoints', column: 'secret_sealed', key: (c) => c.WEBHOOK_SECRET_KEY, readable: (c) => c.WEBHOOK_DECRYPTION_KEYS, context: webhookContext },
];

export async function rotateEncryptionKeys(pool: Pool, cfg: Config, meter?: Progress): Promise<SealedTableReport[]> {
  const reports: SealedTableReport[] = [];
  for (const sealed of sealedColumns) {
    const report: SealedTableReport = { table: sealed.table, current: 0, resealed: 0, unreadable: [] };
    const { rows } = await pool.query(`SELECT id, ${sealed.column} AS value FROM ${sealed.table} ORDER BY id`);
    meter?.start(`${sealed.table} rows`, rows.length);
    for (const row of rows as Array<{ id: string; value: string }>) {
      meter?.advance();
      let opened: { plaintext: string; keyIndex: number };
      try {
        opened = openWithAny(sealed.readable(cfg), row.value, sealed.context(row.id));
      } catch {
        report.unreadable.push(row.id);
        continue;
      }
      if (opened.keyIndex === 0) {
        report.current++;
        continue;
      }
      const resealed = sealSecret(sealed.key(cfg), opened.plaintext, sealed.context(row.id));
      const { rowCount } = await pool.query(
        `UPDATE ${sealed.table} SET ${sealed.column} = $3 WHERE id = $1 AND ${sealed.column} = $2`, [row.id, row.value, resealed],
      );
      // A row changed meanwhile was sealed afresh by the service, under the current key.
      if (rowCount === 1) report.resealed++;
      else report.current++;
    }
    meter?.finish();
    reports.push(report);
  }
  return reports;
}
