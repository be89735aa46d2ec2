import { classifyAddress, addressAllowed } from '../../../services/webhooks/addresses';
import { checkTarget, checkUrlForm, MAX_URL_LENGTH, type Resolver } from '../../../services/webhooks/url-check';

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['fc00::1', 'private'], ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link_local'], ['fe80::1', 'link_local'], ['fe80::1%eth0', 'link_local'],
    ['169.254.169.254', 'metadata'], ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'cgnat'], ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'], ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
    ['240.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'], ['192.0.2.10', 'reserved'], ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'], ['::7f00:1', 'loopback'], ['::8.8.8.8', 'public'],
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'], ['64:ff9b::a00:1', 'private'], ['2002:7f00:1::', 'loopback'],
    ['8.8.8.8', 'public'], ['172.32.0.1', 'public'], ['100.128.0.1', 'public'], ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    // Every IPv6 form embedding IPv4 is judged by the IPv4 inside (issue 12, item 4).
    ['64:ff9b:1::a9fe:a9fe', 'metadata'], ['64:ff9b:1:a9fe:a9:fe00::', 'metadata'],
    // Local-use NAT64: the layout is the operator's choice, so every layout must carry a public IPv4; with
    // 8.8.8.8 in the /96 layout the /48 layout reads 0.0.8.8, so the address is refused.
    ['64:ff9b:1::808:808', 'unspecified'], ['64:ff9b::169.254.169.254', 'metadata'], ['64:ff9b::8.8.8.8', 'public'],
    ['::ffff:0:7f00:1', 'loopback'], ['::ffff:0:127.0.0.1', 'loopback'], ['::ffff:0:a9fe:a9fe', 'metadata'], ['::ffff:0:808:808', 'public'],
    ['::a9fe:a9fe', 'metadata'], ['2002:a9fe:a9fe::1', 'metadata'], ['2002:808:808::1', 'public'],
    ['2001:0:7f00:1::', 'loopback'], ['2001:0:808:808::80ff:fefe', 'loopback'], ['2001:0:808:808::f7f7:f7f7', 'reserved'],
    ['2606:4700::5efe:7f00:1', 'loopback'], ['2606:4700::200:5efe:a9fe:a9fe', 'metadata'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it('private targets open loopback and private ranges only', () => {
    expect(addressAllowed('127.0.0.1', true)).toEqual({ ok: true });
    expect(addressAllowed('10.0.0.1', true)).toEqual({ ok: true });
    expect(addressAllowed('169.254.169.254', true)).toEqual({ ok: false, cls: 'metadata' });
    expect(addressAllowed('100.64.0.1', true)).toEqual({ ok: false, cls: 'cgnat' });
    expect(addressAllowed('127.0.0.1', false)).toEqual({ ok: false, cls: 'loopback' });
    expect(addressAllowed('::ffff:0:7f00:1', false)).toEqual({ ok: false, cls: 'loopback' });
    expect(addressAllowed('64:ff9b:1::a9fe:a9fe', true)).toEqual({ ok: false, cls: 'metadata' });
    // Local-use NAT64 with the /64 layout (127.0.0.1 in bytes 9..12): refused whichever layout the operator chose.
    expect(addressAllowed('64:ff9b:1:0:7f:0:100::', false).ok).toBe(false);
  });
});

describe('webhook URL checks', () => {
  const resolver = (table: Record<string, string[]>): Resolver => async (host) => {
    const found = table[host];
    if (!found) throw new Error('ENOTFOUND');
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const publicOnly = { allowPrivate: false, resolve: resolver({ 'hooks.example.com': ['93.184.216.34'], 'inside.example.com': ['127.0.0.1'], 'mixed.example.com': ['93.184.216.34', '10.0.0.5'], 'v6.example.com': ['::ffff:169.254.169.254'] }) };

  it.each([
    ['http://hooks.example.com/x', 'not_https'],
    ['ftp://hooks.example.com/x', 'not_https'],
    ['not a url', 'invalid_url'],
    ['https://user:pw@hooks.example.com/x', 'credentials'],
    ['https://user@hooks.example.com/x', 'credentials'],
    [`https://hooks.example.com/${'a'.repeat(MAX_URL_LENGTH)}`, 'too_long'],
    ['https://localhost/x', 'localhost'],
    ['https://api.localhost./x', 'localhost'],
    ['https://127.0.0.1/x', 'forbidden_address'],
    ['https://2130706433/x', 'forbidden_address'],
    ['https://0x7f.1/x', 'forbidden_address'],
    ['https://[::1]/x', 'forbidden_address'],
    ['https://[::ffff:127.0.0.1]/x', 'forbidden_address'],
    ['https://10.0.0.1/x', 'forbidden_address'],
    ['https://192.168.0.10/x', 'forbidden_address'],
    ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
    ['https://100.64.1.1/x', 'forbidden_address'],
    ['https://224.0.0.1/x', 'forbidden_address'],
    ['https://0.0.0.0/x', 'forbidden_address'],
    ['https://[fe80::1]/x', 'forbidden_address'],
    ['https://inside.example.com/x', 'forbidden_address'],
    ['https://mixed.example.com/x', 'forbidden_address'],
    ['https://v6.example.com/x', 'forbidden_address'],
    ['https://nowhere.example.com/x', 'forbidden_address'], // one reason for every name refused (issue 31): no DNS oracle
  ])('%s is rejected (%s)', async (url, reason) => {
    expect(await checkTarget(url, publicOnly)).toMatchObject({ ok: false, reason });
  });

  it('accepts a public https URL and pins the checked address', async () => {
    const checked = await checkTarget('https://hooks.example.com:8443/in?x=1', publicOnly);
    expect(checked).toMatchObject({ ok: true, host: 'hooks.example.com', address: { address: '93.184.216.34', family: 4 } });
  });

  it('a URL of exactly 2,048 characters passes the length rule', () => {
    const base = 'https://hooks.example.com/';
    expect(checkUrlForm(base + 'a'.repeat(MAX_URL_LENGTH - base.length), false)).toMatchObject({ ok: true });
  });

  it('with private targets allowed (tests, local runs), loopback passes but http and the metadata address do not', async () => {
    const opts = { allowPrivate: true, resolve: resolver({ 'receiver.test': ['127.0.0.1'] }) };
    expect(await checkTarget('https://receiver.test:9443/', opts)).toMatchObject({ ok: true, address: { address: '127.0.0.1' } });
    expect(await checkTarget('https://localhost:9443/', { allowPrivate: true })).toMatchObject({ ok: true });
    expect(await checkTarget('http://127.0.0.1/', opts)).toMatchObject({ ok: false, reason: 'not_https' });
    expect(await checkTarget('https://169.254.169.254/', opts)).toMatchObject({ ok: false, reason: 'forbidden_address' });
  });
});
