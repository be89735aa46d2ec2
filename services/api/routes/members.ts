/** Members of an account (contract.md section 5): the owner adds and removes editors and viewers. */
import { Router } from 'express';
import { toIso } from '../../platform/clock';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress, type IdentityDeps } from '../identity-deps';
import { loadAccount } from '../stores/accounts';
import { deleteMember, listMembers, upsertMember, type MemberRow } from '../stores/members';
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
    const { created, row } = await upsertMember(rt.pool, account.id, address, req.body.role, rt.clock.now());
    sendJson(res, created ? 201 : 200, memberJson(row));
  });

  router.delete('/v1/account/members/:address', owner, validator.for('removeMember'), async (req, res) => {
    const accountId = accountIdOf(res);
    const address = String(req.params.address);
    if (!(await deleteMember(rt.pool, accountId, address))) throw new ApiError('not_found');
    await revokeSessionsOf(rt.pool, accountId, address, rt.clock.now());
    res.status(204).end();
  });

  return router;
}
