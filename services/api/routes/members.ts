/**
 * Members of an account (contract.md section 5): the owner adds and removes editors and viewers. Changes
 * are member.* commands on the log (a restore brings them back); each answer waits for the processor's
 * committed result and reads the row back, so it is read-your-write.
 */
import { Router } from 'express';
import { toIso } from '../../platform/clock';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress, submitCommand, type IdentityDeps } from '../identity-deps';
import { loadAccount } from '../stores/accounts';
import { findMember, listMembers, type MemberRow } from '../stores/members';
import { revokeSessionsOf } from '../stores/sessions';

const memberJson = (m: MemberRow) => ({ address: m.address, role: m.role, added_at: toIso(m.addedAt) });

export function membersRouter(deps: IdentityDeps): Router {
  const { rt, validator } = deps;
  const router = Router();
  const owner = requireAuth({ session: { minRole: 'owner' } });

  const ownerOf = async (accountId: string) => {
    const account = await loadAccount(rt.pool, accountId);
    if (!account) throw new ApiError('not_found');
    return account;
  };

  router.get('/v1/account/members', requireAuth({ session: { minRole: 'viewer' } }), validator.for('listMembers'), async (_req, res) => {
    const account = await ownerOf(accountIdOf(res));
    const members = (await listMembers(rt.pool, account.id)).map(memberJson);
    const head = account.ownerAddress ? [{ address: account.ownerAddress, role: 'owner', added_at: toIso(account.createdAt) }] : [];
    sendJson(res, 200, { data: [...head, ...members] });
  });

  router.post('/v1/account/members', owner, validator.for('addMember'), async (req, res) => {
    const account = await ownerOf(accountIdOf(res));
    const address = checkAddress(req.body.address, 'address');
    if (address === account.ownerAddress) throw new ApiError('invalid_request', 'The owner is already a member.', { field: 'address' });
    const current = await findMember(rt.pool, account.id, address);
    if (current && current.role === req.body.role) return sendJson(res, 200, memberJson(current)); // nothing to change: nothing on the log
    const { status } = await submitCommand(deps.bus, { type: 'member.set', accountId: account.id, address, role: req.body.role });
    const row = await findMember(rt.pool, account.id, address);
    if (!row) throw new ApiError('not_found'); // removed again by a concurrent request after the commit
    sendJson(res, status, memberJson(row));
  });

  router.delete('/v1/account/members/:address', owner, validator.for('removeMember'), async (req, res) => {
    const accountId = accountIdOf(res);
    const address = String(req.params.address);
    if (!(await findMember(rt.pool, accountId, address))) throw new ApiError('not_found');
    await submitCommand(deps.bus, { type: 'member.remove', accountId, address });
    // Sessions are off the log: revoked here once the removal is committed.
    await revokeSessionsOf(rt.pool, accountId, address, rt.clock.now());
    res.status(204).end();
  });

  return router;
}
