/** Identity and access: signup by address challenge, account, deposit addresses, sessions, members, API keys, address book. */
import type { Operation } from './operation';
import { ref, json, obj, nullable, dateTime } from './builders';

const body = (schema: unknown, required = true) => ({ required, content: { 'application/json': { schema } } });
const noContent = { '204': { description: 'done, no body' } };
const statusEnum = { type: 'string', enum: ['unfunded', 'active', 'suspended', 'closed'] };
const roleEnum = { type: 'string', enum: ['owner', 'editor', 'viewer'] };
const scopeEnum = { type: 'string', enum: ['account.read', 'balance.read', 'orders.read', 'orders.write', 'webhooks.read', 'webhooks.write'] };
const signatureHex = { type: 'string', pattern: '^(0x)?[0-9a-fA-F]{130}$', description: 'Hex personal-sign signature over the challenge message.' };
const nonce = { type: 'string', minLength: 1, maxLength: 128 };

const sec = {
  public: [],
  bootstrap: [{ bootstrapToken: [] }],
  apiKey: (scope: string) => [{ apiKey: [scope] }],
  session: [{ session: [] }],
};

export const identitySecuritySchemes = {
  bootstrapToken: { type: 'http', scheme: 'bearer', bearerFormat: 'abt_<token>', description: '15 minutes, one address; opens exactly four operations.' },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'Signed request: X-API-KEY, X-API-TIMESTAMP, X-API-SIGN = base64(HMAC_SHA256(secret, TIMESTAMP + "." + METHOD + "." + PATH + "." + BODY)).' },
  session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'Dashboard session; X-CSRF-Token on every POST, PATCH, DELETE.' },
};

export const identitySchemas = {
  AccountStatus: statusEnum,
  AccountChallenge: obj({
    nonce: { type: 'string' }, address: ref('Address'), purpose: { type: 'string', enum: ['signup', 'login', 'recovery', 'link', 'promo_redeem', 'promo_dev_code'] },
    message: { type: 'string', description: 'Sign these bytes verbatim.' }, issued_at: dateTime, expires_at: dateTime,
  }),
  BootstrapToken: obj({
    bootstrap_token: { type: 'string', pattern: '^abt_' }, expires_at: dateTime,
    account_id: { type: ['string', 'null'] }, account_status: nullable(ref('AccountStatus')),
  }),
  DepositAddress: obj({
    currency: { type: 'string', enum: ['TRX', 'USDT'] }, address: ref('Address'), memo: { type: 'null' },
    confirmations_required: { type: 'integer' }, contract: { type: ['string', 'null'] },
    rate_now: nullable(obj({ trx_per_usdt: { type: 'string' }, source: { type: 'string', enum: ['dex_v3', 'fixed_env'] }, at: dateTime })),
    spread_bps: { type: ['integer', 'null'] }, min: { type: ['string', 'null'] }, max: { type: ['string', 'null'] },
  }, ['currency', 'address']),
  Account: obj({
    id: { type: 'string' }, brand: { type: 'string' }, network: { type: 'string', enum: ['mainnet', 'nile'] },
    owner_address: { type: ['string', 'null'] }, label: { type: ['string', 'null'] }, display_name: { type: ['string', 'null'] },
    status: ref('AccountStatus'), balance_sun: ref('Sun'), balance_usdt: { type: 'integer' }, reserved_sun: ref('Sun'),
    deposit_addresses: { type: 'array', items: ref('DepositAddress') },
    limits: obj({ max_order_energy: { type: 'integer' }, max_batch_receivers: { type: 'integer' }, orders_per_second: { type: 'integer' } }),
    totals: obj({ deposited_sun: ref('Sun'), spent_sun: ref('Sun'), refunded_sun: ref('Sun'), orders_created: { type: 'integer' }, energy_delegated: { type: 'integer' } }),
    created_at: dateTime,
  }, ['id', 'brand', 'network', 'status', 'balance_sun', 'deposit_addresses', 'created_at']),
  AccountCreated: obj({
    account_id: { type: 'string' }, brand: { type: 'string' }, network: { type: 'string', enum: ['mainnet', 'nile'] }, status: ref('AccountStatus'),
    owner_address: ref('Address'), deposit_addresses: { type: 'array', items: ref('DepositAddress') },
    next: obj({ action: { type: 'string' }, address: ref('Address'), reason: { type: 'string' } }), created_at: dateTime,
  }, ['account_id', 'brand', 'network', 'status', 'owner_address', 'deposit_addresses', 'created_at']),
  Session: obj({
    account_id: { type: 'string' }, account_status: ref('AccountStatus'), display_name: { type: ['string', 'null'] },
    owner_address: { type: ['string', 'null'] }, address: ref('Address'), role: nullable(roleEnum),
    network: { type: 'string', enum: ['mainnet', 'nile'] }, csrf_token: { type: 'string' }, expires_at: dateTime,
    created_at: dateTime, ttl_seconds: { type: 'integer' },
  }, ['account_id', 'account_status', 'address', 'role', 'csrf_token', 'expires_at']),
  SignIn: obj({ signed_in_at: dateTime, ip: { type: ['string', 'null'] }, address: ref('Address') }),
  Member: obj({ address: ref('Address'), role: roleEnum, added_at: dateTime }),
  ApiKey: obj({
    id: { type: 'string', pattern: '^key_' }, name: { type: ['string', 'null'] }, scopes: { type: 'array', items: scopeEnum },
    secret: { type: 'string', description: 'Only in the create response.' }, created_at: dateTime, last_used_at: nullable(dateTime),
  }, ['id', 'name', 'scopes', 'created_at', 'last_used_at']),
  AddressBookEntry: obj({ id: { type: 'string', pattern: '^adr_' }, label: { type: 'string' }, address: ref('Address'), created_at: dateTime, updated_at: dateTime }),
};

const depositAddressesResponse = obj({
  data: { type: 'array', items: ref('DepositAddress') },
  retired: { type: 'array', items: obj({ address: ref('Address'), retired_at: dateTime, credited_until: dateTime }) },
  rotation: obj({
    by: { type: 'string', enum: ['support'] }, min_interval_days: { type: 'integer' }, max_per_window: { type: 'integer' },
    window_days: { type: 'integer' }, retired_credit_days: { type: 'integer' },
  }),
});

const signedChallenge = { address: ref('Address'), nonce, signature: signatureHex };

export const identityPaths: Record<string, Record<string, Operation>> = {
  '/v1/accounts/challenge': {
    post: {
      operationId: 'createChallenge', summary: 'Issue a single-use address challenge (ten minutes).', tags: ['signup'], security: sec.public,
      requestBody: body(obj({ address: ref('Address'), purpose: { type: 'string', enum: ['signup', 'login', 'recovery'] } }, ['address'])),
      responses: { '201': json('challenge', ref('AccountChallenge')) },
    },
  },
  '/v1/accounts/challenge/verify': {
    post: {
      operationId: 'verifyChallenge', summary: 'Prove control of the address; returns a bootstrap token.', tags: ['signup'], security: sec.public,
      requestBody: body(obj(signedChallenge)),
      responses: { '200': json('bootstrap token', ref('BootstrapToken')) },
    },
  },
  '/v1/accounts': {
    post: {
      operationId: 'createAccount', summary: 'Create the account of an address (idempotent by address).', tags: ['signup'],
      security: [...sec.bootstrap, {}],
      requestBody: body(obj({
        ...signedChallenge,
        email: { type: ['string', 'null'], format: 'email', maxLength: 254 },
        label: { type: ['string', 'null'], maxLength: 256 },
      }, ['address'])),
      responses: {
        '200': json('the existing account, nothing created', ref('AccountCreated')),
        '201': json('created (unfunded)', ref('AccountCreated')),
      },
    },
  },
  '/v1/accounts/deposit-address': {
    get: {
      operationId: 'getBootstrapDepositAddress', summary: 'Deposit address of the bootstrap token\'s account.', tags: ['signup'], security: sec.bootstrap,
      parameters: [{ name: 'currency', in: 'query', schema: { type: 'string', enum: ['TRX', 'USDT'] } }],
      responses: {
        '200': json('deposit addresses', obj({ account_id: { type: 'string' }, status: ref('AccountStatus'), data: { type: 'array', items: ref('DepositAddress') }, min_deposit_sun: ref('Sun') })),
      },
    },
  },
  '/v1/account': {
    get: {
      operationId: 'getAccount', summary: 'The account.', tags: ['account'], security: [...sec.apiKey('account.read'), ...sec.bootstrap, ...sec.session],
      responses: { '200': json('account', ref('Account')) },
    },
    patch: {
      operationId: 'patchAccount', summary: 'Edit the display name (owner).', tags: ['account'], security: sec.session,
      requestBody: body(obj({ display_name: { type: ['string', 'null'], maxLength: 256 } })),
      responses: { '200': json('account', ref('Account')) },
    },
  },
  '/v1/deposit-addresses': {
    get: {
      operationId: 'listDepositAddresses', summary: 'Deposit addresses, retired ones and the rotation limits.', tags: ['account'], security: [...sec.apiKey('account.read'), ...sec.session],
      responses: { '200': json('deposit addresses', depositAddressesResponse) },
    },
  },
  '/v1/session': {
    get: {
      operationId: 'getSession', summary: 'Restore the dashboard session.', tags: ['session'], security: sec.session,
      responses: { '200': json('session', ref('Session')) },
    },
    post: {
      operationId: 'createSession', summary: 'Sign in with a signed challenge; sets the session cookie.', tags: ['session'], security: sec.public,
      requestBody: body(obj({ ...signedChallenge, account_id: { type: 'string', maxLength: 64 } }, ['address', 'nonce', 'signature'])),
      responses: { '201': json('session', ref('Session')) },
    },
    delete: {
      operationId: 'deleteSession', summary: 'Sign out this session.', tags: ['session'], security: sec.session,
      responses: { ...noContent },
    },
  },
  '/v1/session/refresh': {
    post: {
      operationId: 'refreshSession', summary: 'Slide the expiry forward and reissue the cookie.', tags: ['session'], security: sec.session,
      responses: { '200': json('session', ref('Session')) },
    },
  },
  '/v1/session/revoke-all': {
    post: {
      operationId: 'revokeAllSessions', summary: 'Revoke every session of the signed-in wallet on this account.', tags: ['session'], security: sec.session,
      responses: { ...noContent },
    },
  },
  '/v1/session/history': {
    get: {
      operationId: 'sessionHistory', summary: 'The last ten sign-ins of the signed-in wallet on this account.', tags: ['session'], security: sec.session,
      responses: { '200': json('sign-ins', obj({ data: { type: 'array', items: ref('SignIn') } })) },
    },
  },
  '/v1/account/members': {
    get: {
      operationId: 'listMembers', summary: 'Members and their roles.', tags: ['session'], security: sec.session,
      responses: { '200': json('members', obj({ data: { type: 'array', items: ref('Member') } })) },
    },
    post: {
      operationId: 'addMember', summary: 'Add a member or change its role (owner).', tags: ['session'], security: sec.session,
      requestBody: body(obj({ address: ref('Address'), role: { type: 'string', enum: ['editor', 'viewer'] } })),
      responses: { '200': json('role changed', ref('Member')), '201': json('added', ref('Member')) },
    },
  },
  '/v1/account/members/{address}': {
    delete: {
      operationId: 'removeMember', summary: 'Remove a member (owner); its sessions end.', tags: ['session'], security: sec.session,
      parameters: [{ name: 'address', in: 'path', required: true, schema: ref('Address') }],
      responses: { ...noContent },
    },
  },
  '/v1/api-keys': {
    post: {
      operationId: 'createApiKey', summary: 'Issue an API key; the secret is returned once.', tags: ['api-keys'], security: [...sec.bootstrap, ...sec.session],
      requestBody: body(obj({ name: { type: ['string', 'null'], minLength: 1, maxLength: 64 }, scopes: { type: 'array', items: scopeEnum, minItems: 1, uniqueItems: true } }, []), false),
      responses: { '201': json('key with its secret', ref('ApiKey')) },
    },
    get: {
      operationId: 'listApiKeys', summary: 'Active API keys, without secrets.', tags: ['api-keys'], security: sec.session,
      responses: { '200': json('keys', obj({ data: { type: 'array', items: ref('ApiKey') } })) },
    },
  },
  '/v1/api-keys/{keyId}': {
    delete: {
      operationId: 'revokeApiKey', summary: 'Revoke an API key at once (owner).', tags: ['api-keys'], security: sec.session,
      parameters: [{ name: 'keyId', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { ...noContent },
    },
  },
  '/v1/account/addresses': {
    get: {
      operationId: 'listAddressBook', summary: 'The address book, newest first.', tags: ['address-book'], security: sec.session,
      responses: { '200': json('entries', obj({ data: { type: 'array', items: ref('AddressBookEntry') }, limit: { type: 'integer' }, used: { type: 'integer' } })) },
    },
    post: {
      operationId: 'saveAddressBookEntry', summary: 'Save an address (replaces the label of a known one without using a slot).', tags: ['address-book'], security: sec.session,
      requestBody: body(obj({ label: { type: 'string', maxLength: 256 }, address: ref('Address') })),
      responses: {
        '200': json('label replaced', ref('AddressBookEntry')), '201': json('saved', ref('AddressBookEntry')),
      },
    },
  },
  '/v1/account/addresses/{entryId}': {
    delete: {
      operationId: 'deleteAddressBookEntry', summary: 'Delete an entry; frees its slot.', tags: ['address-book'], security: sec.session,
      parameters: [{ name: 'entryId', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { ...noContent },
    },
  },
};
