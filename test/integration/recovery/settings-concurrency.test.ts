/**
 * Members and the address book are commands the processor applies (issue 15): its rules hold under
 * concurrent requests (the limit, one entry per address, one member row per address), and every answer
 * is read-your-write. After the tests, a replay of the log must rebuild both tables exactly.
 */
import { replayAndVerify } from '../../../services/ops/replay';
import { call, newWallet, sessionHeaders, signIn, signUp, startIdentityStack, type IdentityStack, type Session } from '../../support/identity';
import { templateReplay } from '../../support/world';

let stack: IdentityStack;
beforeAll(async () => {
  stack = await startIdentityStack('settingsconc');
});
afterAll(async () => {
  const report = stack && (await replayAndVerify(stack.rt, templateReplay));
  await stack?.stop();
  const differing = report?.tables.filter((t) => t.differences.length > 0) ?? [];
  expect(differing).toEqual([]);
  expect(report?.tables.map((t) => t.table)).toEqual(expect.arrayContaining(['account_members', 'address_book']));
});

const as = (s: Session, method: string, path: string, body?: unknown) => call(stack.base, method, path, { body, headers: sessionHeaders(s) });

test('concurrent saves into an almost full address book: exactly the free slots are taken, the rest is 3019', async () => {
  const owner = await signUp(stack.base);
  const session = await signIn(stack.base, owner.wallet, owner.accountId);
  const wallets = await Promise.all(Array.from({ length: 98 + 6 }, () => newWallet()));
  for (let i = 0; i < 98; i += 14) {
    const batch = await Promise.all(wallets.slice(i, i + 14).map((w, k) => as(session, 'POST', '/v1/account/addresses', { label: `r${i + k}`, address: w.address })));
    expect(batch.every((r) => r.status === 201)).toBe(true);
  }
  const racing = await Promise.all(wallets.slice(98).map((w) => as(session, 'POST', '/v1/account/addresses', { label: 'late', address: w.address })));
  expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
  for (const r of racing.filter((x) => x.status === 409)) expect(r.body.error.details).toEqual({ limit: 100, used: 100 });
  // Every 201 is listed at once (read-your-write), and the book holds exactly 100.
  const list = await as(session, 'GET', '/v1/account/addresses');
  expect(list.body.used).toBe(100);
  const ids = new Set(list.body.data.map((e: { id: string }) => e.id));
  for (const r of racing.filter((x) => x.status === 201)) expect(ids.has(r.body.id)).toBe(true);
});

test('the same new address saved five times at once is one entry: one 201, the others relabel it (200, same id)', async () => {
  const owner = await signUp(stack.base);
  const session = await signIn(stack.base, owner.wallet, owner.accountId);
  const { address } = await newWallet();
  const saves = await Promise.all([1, 2, 3, 4, 5].map((n) => as(session, 'POST', '/v1/account/addresses', { label: `try ${n}`, address })));
  expect(saves.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
  expect(new Set(saves.map((r) => r.body.id)).size).toBe(1);
  expect((await as(session, 'GET', '/v1/account/addresses')).body.data).toHaveLength(1);
});

test('concurrent adds of one member: one row, one 201; concurrent removes: one 204, one 404; the member signs in with the role it has', async () => {
  const owner = await signUp(stack.base);
  const session = await signIn(stack.base, owner.wallet, owner.accountId);
  const member = await newWallet();
  const adds = await Promise.all(['viewer', 'editor', 'viewer'].map((role) => as(session, 'POST', '/v1/account/members', { address: member.address, role })));
  expect(adds.filter((r) => r.status === 201)).toHaveLength(1);
  expect(adds.every((r) => [200, 201].includes(r.status))).toBe(true);
  const listed = (await as(session, 'GET', '/v1/account/members')).body.data.filter((m: { address: string }) => m.address === member.address);
  expect(listed).toHaveLength(1);
  const signedIn = await signIn(stack.base, member, owner.accountId);
  expect(signedIn.body.role).toBe(listed[0].role);

  const removes = await Promise.all([1, 2].map(() => as(session, 'DELETE', `/v1/account/members/${member.address}`)));
  expect(removes.map((r) => r.status).sort()).toEqual([204, 404]);
  // Removal revoked the member's session once committed.
  expect((await as(signedIn, 'GET', '/v1/account/addresses')).status).toBe(401);
});
