import { TronWeb } from 'tronweb';
import { solidifiedInfo, startDevnet, type Devnet } from './start-devnet';

/**
 * The node reads are served off node:http (http/reads.ts) for their exact paths, and by express for any other
 * spelling (express matches a trailing slash and any case): both must answer the same status, content type
 * and body, byte for byte, for every kind of read, form of parameters and error.
 */
jest.setTimeout(90_000);

let devnet: Devnet;
let tronWeb: TronWeb;
beforeAll(async () => {
  // Blocks only on demand: the two answers compared are read one after the other and must see the same head.
  devnet = await startDevnet({ DEVNET_BLOCK_MS: '3600000' });
  tronWeb = new TronWeb({ fullHost: devnet.url, privateKey: devnet.accounts.faucet.private_key });
});
afterAll(() => devnet?.stop());

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function call(path: string, init: { query?: string; body?: string; method?: string } = {}): Promise<Answer> {
  const res = await fetch(devnet.url + path + (init.query ? '?' + init.query : ''), { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), body: init.body });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

/** The fast path's answer and express's (trailing slash) to the same request; they must be equal. */
async function both(path: string, init: { query?: string; body?: string; method?: string } = {}): Promise<Answer> {
  const fast = await call(path, init);
  const viaExpress = await call(path + '/', init);
  expect(fast).toEqual(viaExpress);
  return fast;
}

describe('node reads on the fast path', () => {
  it('answers every read as the express routes do', async () => {
    const pool = devnet.accounts.pool[0];
    const receiver = await tronWeb.createAccount();
    const funded = (await tronWeb.trx.sendTransaction(receiver.address.base58, 3_000_000)).transaction.txID;
    const poolTw = new TronWeb({ fullHost: devnet.url, privateKey: pool.private_key });
    const delegate = await poolTw.trx.sign(await poolTw.transactionBuilder.delegateResource(20_000_000, receiver.address.base58, 'ENERGY', pool.address, true, 600));
    await poolTw.trx.sendRawTransaction(delegate);
    await devnet.post('/admin/blocks', { count: 3 });
    await Promise.all([funded, delegate.txID].map((txid) => solidifiedInfo(tronWeb, txid)));
    const head = JSON.parse((await call('/wallet/getnowblock')).body).block_header.raw_data.number;
    const hexReceiver = TronWeb.address.toHex(receiver.address.base58);

    const strings = (params: Record<string, unknown>) => Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const forms = (params: Record<string, unknown>) => [
      { body: JSON.stringify(params) },
      { body: JSON.stringify({ ...params, visible: true }) },
      { body: JSON.stringify({ ...params, int64_as_string: true }) },
      { query: new URLSearchParams(strings(params)).toString() },
      { query: new URLSearchParams({ ...strings(params), visible: 'true' }).toString() },
    ];
    const cases: [string, Record<string, unknown>][] = [
      ['getaccount', { address: receiver.address.base58 }],
      ['getaccount', { address: hexReceiver }],
      ['getaccountresource', { address: receiver.address.base58 }],
      ['getaccountresource', { address: pool.address }],
      ['getaccountnet', { address: pool.address }],
      ['getdelegatedresourcev2', { fromAddress: pool.address, toAddress: receiver.address.base58 }],
      ['getdelegatedresourceaccountindexv2', { value: pool.address }],
      ['getcandelegatedmaxsize', { owner_address: pool.address, type: 1 }],
      ['getchainparameters', {}],
      ['getnowblock', {}],
      ['getblock', { id_or_num: String(head - 1), detail: true }],
      ['getblockbynum', { num: head - 1 }],
      ['getblockbylimitnext', { startNum: 1, endNum: head + 1 }],
      ['getblockbylatestnum', { num: 5 }],
      ['gettransactionbyid', { value: delegate.txID }],
      ['gettransactioninfobyid', { value: funded }],
      ['gettransactioninfobyblocknum', { num: JSON.parse((await call('/wallet/gettransactioninfobyid', { body: JSON.stringify({ value: funded }) })).body).blockNumber }],
    ];
    const answers: Answer[] = [];
    for (const [route, params] of cases) {
      for (const base of ['/wallet/', '/walletsolidity/']) {
        for (const form of forms(params)) answers.push(await both(base + route, form));
      }
    }
    expect(answers.every((a) => a.status === 200 && a.type === 'application/json; charset=utf-8')).toBe(true);
    // The reads found what was made: not a comparison of two empty answers.
    const account = JSON.parse((await both('/wallet/getaccount', { body: JSON.stringify({ address: receiver.address.base58, visible: true }) })).body);
    expect(account.balance).toBe(3_000_000);
    const delegation = JSON.parse((await both('/wallet/getdelegatedresourcev2', { query: `fromAddress=${pool.address}&toAddress=${receiver.address.base58}` })).body);
    expect(delegation.delegatedResource[0].frozen_balance_for_energy).toBe(20_000_000);
    expect((await both('/wallet/getaccountresource', { body: JSON.stringify({ address: receiver.address.base58, int64_as_string: true }) })).body).toMatch(/"EnergyLimit":"\d+"/);
  });

  it('answers errors, empty requests and concurrent reads as express does', async () => {
    expect((await both('/wallet/getaccount', { body: '{"address": ' })).body).toMatch(/IllegalArgumentException/);
    expect((await both('/wallet/getblockbynum', { body: JSON.stringify({ num: 'x' }) })).body).toMatch(/IllegalArgumentException/);
    expect((await both('/wallet/getaccount', { method: 'POST' })).body).toBe('{}');
    expect((await both('/wallet/getaccount', { body: '   ' })).body).toBe('{}');
    expect((await both('/wallet/getaccount', { body: JSON.stringify({ address: 'Tnot-an-address' }) })).body).toBe('{}');

    // Many reads at once on kept-alive connections: each answers its own request.
    const addresses = [devnet.accounts.faucet, ...devnet.accounts.customers, ...devnet.accounts.pool].map((w) => w.address);
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) => call('/wallet/getaccount', { body: JSON.stringify({ address: addresses[i % addresses.length], visible: true }) })),
    );
    results.forEach((r, i) => expect(JSON.parse(r.body).address).toBe(addresses[i % addresses.length]));

    await devnet.post('/admin/faults', { fail_reads_ms: 500 });
    const failing = await both('/wallet/getaccountresource', { body: JSON.stringify({ address: addresses[0] }) });
    expect(failing.status).toBe(503);
    await devnet.post('/admin/faults', { clear: true });
  });
});
