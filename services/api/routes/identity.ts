/** The identity and access routers, in mount order. */
import type { Router } from 'express';
import type { IdentityDeps } from '../identity-deps';
import { noRate } from '../views/account-view';
import { accountRouter } from './account';
import { addressBookRouter } from './address-book';
import { apiKeysRouter } from './api-keys';
import { membersRouter } from './members';
import { sessionRouter } from './session';
import { signupRouter } from './signup';

export function identityRouters(deps: Omit<IdentityDeps, 'rate'> & { rate?: IdentityDeps['rate'] }): Router[] {
  const full: IdentityDeps = { ...deps, rate: deps.rate ?? noRate };
  return [signupRouter(full), accountRouter(full), sessionRouter(full), membersRouter(full), apiKeysRouter(full), addressBookRouter(full)];
}
