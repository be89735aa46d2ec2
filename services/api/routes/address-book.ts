/** The address book: 100 entries, unique by address, labels 1..64 characters after trimming. */
import { Router } from 'express';
import { randomId } from '../../domain/ids';
import { cleanTitle } from '../../identity/text-rules';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import { checkAddress, type IdentityDeps } from '../identity-deps';
import { deleteEntry, listEntries, saveEntry } from '../stores/address-book';

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
    const saved = await saveEntry(rt.pool, accountId, randomId('addressBookEntry'), address, label.value, rt.clock.now(), ADDRESS_BOOK_LIMIT);
    if (saved.kind === 'full') throw new ApiError('address_book_full', undefined, { limit: ADDRESS_BOOK_LIMIT, used: saved.used });
    sendJson(res, saved.kind === 'created' ? 201 : 200, saved.entry);
  });

  router.delete('/v1/account/addresses/:entryId', editor, validator.for('deleteAddressBookEntry'), async (req, res) => {
    if (!(await deleteEntry(rt.pool, accountIdOf(res), String(req.params.entryId)))) throw new ApiError('not_found');
    res.status(204).end();
  });

  return router;
}
