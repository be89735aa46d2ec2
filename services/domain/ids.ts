/**
 * Ids are either random (things a client creates) or derived from the command that made them, so that
 * replaying the log into an empty database produces the very same ids (and downstream dedup works).
 */
import { createHash, randomBytes } from 'node:crypto';

export const idPrefixes = {
  account: 'acc_',
  order: 'ord_',
  batch: 'bat_',
  subscription: 'sub_',
  event: 'evt_',
  delivery: 'dlv_',
  addressBookEntry: 'adr_',
  journal: 'jrn_',
  bootstrapToken: 'abt_',
  command: 'cmd_',
  request: 'req_',
  apiKey: 'key_',
  quote: 'quo_',
  webhookEndpoint: 'whk_',
  session: 'ses_',
} as const;

export type IdKind = keyof typeof idPrefixes;

/** Random bytes drawn 4 KB at a time: one randomBytes call per few hundred ids (every request has one). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

export function randomId(kind: IdKind, bytes = 12): string {
  if (bytes > POOL_BYTES) return idPrefixes[kind] + randomBytes(bytes).toString('hex');
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const id = idPrefixes[kind] + pool.toString('hex', used, used + bytes);
  used += bytes;
  return id;
}

/** A stable id from the parts that identify the thing, e.g. (command id, position in its effects). */
export function derivedId(kind: IdKind, ...parts: Array<string | number>): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return idPrefixes[kind] + digest.slice(0, 24);
}
