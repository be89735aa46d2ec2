/**
 * Retention (issue 31, item 7): the purge deletes challenges, bootstrap tokens, quotes, sign-ins and audit
 * rows past their documented retention on the real PostgreSQL, keeps everything younger, and never an
 * account's last ten sign-ins however old.
 */
import { purgeExpired, RETENTION } from '../../../services/ops/purge';
import type { Runtime } from '../../../services/runtime';
import { dropWorld, newWorld, openRuntime, type World } from '../../support/world';

const DAY = 86_400_000;
let world: World;
let rt: Runtime;
const now = Date.now();
const at = (ms: number) => new Date(now - ms);

beforeAll(async () => {
  world = newWorld('purge');
  rt = await openRuntime(world);
});
afterAll(async () => {
  await rt?.close();
  if (world) await dropWorld(world);
});

async function ids(sql: string): Promise<string[]> {
  return (await rt.pool.query(sql)).rows.map((r: { id: string }) => String(r.id)).sort();
}

test('rows past retention go, younger rows and the last ten sign-ins stay', async () => {
  const q = (sql: string, params: unknown[]) => rt.pool.query(sql, params);
  for (const [nonce, age] of [['old', RETENTION.challengesMs + DAY], ['young', RETENTION.challengesMs - DAY]] as const) {
    await q(`INSERT INTO auth_challenges (nonce, address, purpose, message, issued_at, expires_at) VALUES ($1, 'T', 'login', 'm', $2, $2)`, [nonce, at(age)]);
    await q(`INSERT INTO bootstrap_tokens (token_hash, id, address, created_at, expires_at) VALUES ($1, $1, 'T', $2, $2)`, [nonce, at(age)]);
  }
  for (const [id, age] of [['quo_old', RETENTION.quotesMs + DAY], ['quo_young', RETENTION.quotesMs - DAY]] as const) {
    await q(
      `INSERT INTO quotes (id, account_id, resource, amount, tier, receiver, price_sun_per_unit, pay_amount_sun, activate_amount_sun, total_amount_sun, receiver_active, expires_at, created_at)
       VALUES ($1, 'acc_1', 'energy', 65000, '5m', 'T', 40, 2600000, 0, 2600000, true, $2, $2)`, [id, at(age)],
    );
  }
  for (const [action, age] of [['old', RETENTION.auditMs + DAY], ['young', RETENTION.auditMs - DAY]] as const) {
    await q(`INSERT INTO audit_log (account_id, actor, action, details, at) VALUES ('acc_1', 'T', $1, null, $2)`, [action, at(age)]);
  }
  // acc_busy: 15 sign-ins, all old: the 10 newest stay. acc_quiet: 3 old ones: all stay. acc_mixed: 12 old, 2 young: 2 young + 8 old stay.
  const signIn = (account: string, age: number) => q(`INSERT INTO sign_ins (account_id, address, ip, signed_in_at) VALUES ($1, 'T', null, $2)`, [account, at(age)]);
  for (let i = 0; i < 15; i++) await signIn('acc_busy', RETENTION.signInsMs + (20 - i) * DAY);
  for (let i = 0; i < 3; i++) await signIn('acc_quiet', RETENTION.signInsMs + (20 - i) * DAY);
  for (let i = 0; i < 12; i++) await signIn('acc_mixed', RETENTION.signInsMs + (20 - i) * DAY);
  for (let i = 0; i < 2; i++) await signIn('acc_mixed', DAY * (2 - i));
  const newestBusy = await ids(`SELECT id FROM sign_ins WHERE account_id = 'acc_busy' ORDER BY id DESC LIMIT 10`);

  const counts = await purgeExpired(rt.pool, now);
  expect(counts).toEqual({ auth_challenges: 1, bootstrap_tokens: 1, quotes: 1, sign_ins: 5 + 4, audit_log: 1 });
  expect(await ids(`SELECT nonce AS id FROM auth_challenges`)).toEqual(['young']);
  expect(await ids(`SELECT id FROM bootstrap_tokens`)).toEqual(['young']);
  expect(await ids(`SELECT id FROM quotes`)).toEqual(['quo_young']);
  expect(await ids(`SELECT action AS id FROM audit_log`)).toEqual(['young']);
  expect(await ids(`SELECT id FROM sign_ins WHERE account_id = 'acc_busy'`)).toEqual(newestBusy);
  expect((await rt.pool.query(`SELECT count(*)::int AS n FROM sign_ins WHERE account_id = 'acc_quiet'`)).rows[0].n).toBe(3);
  expect((await rt.pool.query(`SELECT count(*)::int AS n FROM sign_ins WHERE account_id = 'acc_mixed'`)).rows[0].n).toBe(10);
  // A second pass finds nothing more.
  expect(Object.values(await purgeExpired(rt.pool, now)).every((n) => n === 0)).toBe(true);
});
