import { cachingResolver, checkTarget, type ResolvedAddress, type Resolver } from '../../../services/webhooks/url-check';

/** A resolver that counts lookups and answers from a table the test changes. */
function table(answers: Record<string, ResolvedAddress[]>): { resolve: Resolver; lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    resolve: async (host) => {
      lookups.push(host);
      const a = answers[host];
      if (!a) throw new Error('ENOTFOUND');
      return a;
    },
  };
}

describe('the sender DNS cache', () => {
  it('answers a host from its last answer until the TTL passes, then asks again', async () => {
    let now = 0;
    const answers = { 'hooks.example': [{ address: '93.184.216.34', family: 4 as const }] };
    const t = table(answers);
    const cached = cachingResolver(t.resolve, 5_000, () => now);
    expect(await cached('hooks.example')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    now = 4_999;
    await cached('HOOKS.example');
    expect(t.lookups).toEqual(['hooks.example']);
    now = 5_000;
    answers['hooks.example'] = [{ address: '93.184.216.35', family: 4 }];
    expect(await cached('hooks.example')).toEqual([{ address: '93.184.216.35', family: 4 }]);
    expect(t.lookups).toHaveLength(2);
  });

  it('shares one lookup in flight and keeps no failure', async () => {
    const t = table({});
    const cached = cachingResolver(t.resolve, 5_000, () => 0);
    const both = await Promise.allSettled([cached('down.example'), cached('down.example')]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(t.lookups).toHaveLength(1);
    await expect(cached('down.example')).rejects.toThrow('ENOTFOUND');
    expect(t.lookups).toHaveLength(2);
  });

  it('still judges every address on every check: a cached private answer is refused each time', async () => {
    const t = table({ 'rebind.example': [{ address: '93.184.216.34', family: 4 }, { address: '169.254.169.254', family: 4 }] });
    const resolve = cachingResolver(t.resolve, 5_000, () => 0);
    for (let i = 0; i < 2; i++) {
      expect(await checkTarget('https://rebind.example/hook', { allowPrivate: false, resolve })).toMatchObject({ ok: false, reason: 'forbidden_address' });
    }
    expect(t.lookups).toHaveLength(1);
  });
});
