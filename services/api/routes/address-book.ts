/**
 * The address book: 100 entries, unique by address, labels 1..64 characters after trimming. Saves and
 * deletes are address_book.* commands on the log (the processor keeps the limit over its own state); each
 * answer waits for the committed result and reads the entry back (read-your-write).
 */
import { Router } from 'express';
import { randomId } from '../../domain/ids';
import { cleanTitle } from '../../identity/text-rules';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress, submitCommand, type IdentityDeps } from '../identity-deps';
import { findEntry, listEntries } from '../stores/address-book';

export const ADDRESS_BOOK_LIMIT = 100;
export const LABEL_MAX = 64;

export function addressBookRouter(deps: IdentityDeps): Router {
  const { rt, validator } = deps;
  const router = Router();
  const editor = requireAuth({ session: { minRole: 'editor' } });

  router.get('/v1/account/addresses', requireAuth({ session: { minRole: 'viewer' } }), validator.for('listAddressBook'), async (_req, res) => {
    const data = await listEntries(rt.pool, accountIdOf(res));
    sendJson(res, 200, { data, limit: ADDRESS_BOOK_LIMIT, used: data.length });
  });

  router.post('/v1/account/addresses', editor, validator.for('saveAddressBookEntry'), async (req, res) => {
    const accountId = accountIdOf(res);
    const label = cleanTitle(req.body.label, LABEL_MAX);
    if (!label.ok) throw new ApiError('invalid_request', `\`label\` ${label.reason}.`, { field: 'label' });
    const address = checkAddress(req.body.address, 'address');
    const saved = await submitCommand(deps.bus, {
      type: 'address_book.save', accountId, entryId: randomId('addressBookEntry'), address, label: label.value, limit: ADDRESS_BOOK_LIMIT,
    });
    const entry = await findEntry(rt.pool, accountId, String(saved.body.id));
    if (!entry) throw new ApiError('not_found'); // deleted again by a concurrent request after the commit
    sendJson(res, saved.status, entry);
  });

  router.delete('/v1/account/addresses/:entryId', editor, validator.for('deleteAddressBookEntry'), async (req, res) => {
    const accountId = accountIdOf(res);
    const entryId = String(req.params.entryId);
    if (!(await findEntry(rt.pool, accountId, entryId))) throw new ApiError('not_found'); // nothing on the log for a request that changes nothing
    await submitCommand(deps.bus, { type: 'address_book.delete', accountId, entryId });
    res.status(204).end();
  });

  return router;
}
