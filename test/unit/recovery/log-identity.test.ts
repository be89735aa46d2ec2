import { parseConfig, devDefaults } from '../../../services/platform/config';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../../services/platform/kafka-topic-ids';
import { logMismatch, networkMismatch, withNewTopics, type LogIdentity } from '../../../services/platform/log-identity';
import { freshKeys } from '../support/keys';

const built: LogIdentity = {
  network: 'nile',
  clusterId: 'clusterA',
  topics: { accountCommands: { topic: 'nile.account-commands', id: '11111111-1111-1111-1111-111111111111' } },
};

describe('a database knows its log', () => {
  it('accepts the log it was built from', () => {
    expect(logMismatch(built, structuredClone(built), 'energy_nile')).toBeNull();
  });
  it('refuses another cluster, naming both ids and how to restore', () => {
    const msg = logMismatch(built, { ...built, clusterId: 'clusterB' }, 'energy_nile');
    expect(msg).toMatch(/database energy_nile was built from another log/);
    expect(msg).toMatch(/built from clusterA, this process is connected to clusterB/);
    expect(msg).toMatch(/ops restore --into/);
    // First, in one sentence, the usual cause and the command that starts afresh.
    expect(msg!.split('\n')[0]).toMatch(/another checkout's stack or a `make stack-reset`: start afresh in a new database with `APP_DATABASE=energy_nile_2 make up`/);
  });
  it('refuses a recreated topic (same name, new id) and another topic name', () => {
    const recreated = { ...built, topics: { accountCommands: { topic: 'nile.account-commands', id: '22222222-2222-2222-2222-222222222222' } } };
    expect(logMismatch(built, recreated, 'db')).toMatch(/topic id 11111111-1111-1111-1111-111111111111, the topic now has id 22222222-2222-2222-2222-222222222222 \(deleted and recreated\)/);
    const other = { ...built, topics: { accountCommands: { topic: 'nile.other.account-commands', id: '11111111-1111-1111-1111-111111111111' } } };
    expect(logMismatch(built, other, 'db')).toMatch(/built from nile.account-commands .* reads nile.other.account-commands/);
  });
  it('refuses another network before anything else', () => {
    expect(networkMismatch('nile', 'nile', 'energy_nile')).toBeNull();
    const msg = logMismatch(built, { ...built, network: 'mainnet', clusterId: 'other' }, 'energy_nile');
    expect(msg).toMatch(/energy_nile is stamped NETWORK=nile, this process runs NETWORK=mainnet/);
  });
  it('adds topics declared after the stamp instead of refusing', () => {
    const more = { ...built, topics: { ...built.topics, accountEvents: { topic: 'nile.account-events', id: '33333333-3333-3333-3333-333333333333' } } };
    expect(logMismatch(built, more, 'db')).toBeNull();
    expect(withNewTopics(built, more)?.topics.accountEvents.id).toBe('33333333-3333-3333-3333-333333333333');
    expect(withNewTopics(more, more)).toBeNull();
  });
  it('names the default database after the network', () => {
    expect(parseConfig({ ...freshKeys() }).DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/energy_nile');
    expect(parseConfig({ ...freshKeys(), NETWORK: 'mainnet', DEPOSIT_XPUB: devDefaults.DEPOSIT_XPUB }).DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/energy_mainnet');
    expect(parseConfig({ ...freshKeys(), DATABASE_URL: 'postgres://x@h:1/mine' }).DATABASE_URL).toBe('postgres://x@h:1/mine');
  });
});

describe('Metadata v12 encoding', () => {
  it('frames the request with its size, api key 3 and version 12', () => {
    const frame = encodeMetadataRequest(7, 'c', ['t1']);
    expect(frame.readInt32BE(0)).toBe(frame.length - 4);
    expect(frame.readInt16BE(4)).toBe(3);
    expect(frame.readInt16BE(6)).toBe(12);
    expect(frame.readInt32BE(8)).toBe(7);
  });
  it('decodes cluster id and topic ids, skipping topics the broker reports with an error', () => {
    const uuid = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const str = (s: string) => Buffer.concat([Buffer.from([s.length + 1]), Buffer.from(s)]);
    const int32 = (n: number) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; };
    const int16 = (n: number) => { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; };
    const topic = (error: number, name: string) => Buffer.concat([
      int16(error), str(name), uuid, Buffer.from([0]),
      Buffer.from([2]), int16(0), int32(0), int32(1), int32(0), Buffer.from([2]), int32(1), Buffer.from([2]), int32(1), Buffer.from([1]), Buffer.from([0]),
      int32(0), Buffer.from([0]),
    ]);
    const payload = Buffer.concat([
      int32(9), Buffer.from([0]), int32(0),
      Buffer.from([2]), int32(1), str('localhost'), int32(9092), Buffer.from([0]), Buffer.from([0]),
      str('theCluster'), int32(1),
      Buffer.from([3]), topic(0, 'good'), topic(3, 'missing'),
      Buffer.from([0]),
    ]);
    const m = decodeMetadataResponse(payload, 9);
    expect(m.clusterId).toBe('theCluster');
    expect([...m.topicIds]).toEqual([['good', '00112233-4455-6677-8899-aabbccddeeff']]);
    expect(() => decodeMetadataResponse(payload, 10)).toThrow(/another request/);
    expect(() => decodeMetadataResponse(payload.subarray(0, 20), 9)).toThrow(/ended early/);
  });
});
