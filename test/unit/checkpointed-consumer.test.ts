import { AppendBatcher } from '../../services/platform/append-batcher';
import { isDeterministicFailure } from '../../services/platform/checkpointed-consumer';
import type { OutgoingRecord } from '../../services/platform/kafka';

const rec = (n: number): OutgoingRecord => ({ key: Buffer.from(`k${n}`), value: Buffer.from(`v${n}`) });

describe('AppendBatcher: group commit of appends', () => {
  test('appends of the same moment go out in one request, in order, and each caller learns when it is stored', async () => {
    const sent: string[][] = [];
    const b = new AppendBatcher({ lingerMs: 5, maxRecords: 100, send: async (rs) => void sent.push(rs.map((r) => r.value.toString())) });
    await Promise.all([b.append([rec(1)]), b.append([rec(2), rec(3)]), b.append([rec(4)])]);
    expect(sent).toEqual([['v1', 'v2', 'v3', 'v4']]);
  });

  test('a full batch leaves at once, without waiting out the linger', async () => {
    const sent: number[] = [];
    const b = new AppendBatcher({ lingerMs: 10_000, maxRecords: 3, send: async (rs) => void sent.push(rs.length) });
    const started = Date.now();
    await Promise.all([b.append([rec(1), rec(2)]), b.append([rec(3), rec(4)])]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(sent).toEqual([3, 1]);
  });

  test('a failed request fails every append in it, and the next request is unaffected', async () => {
    let fail = true;
    const b = new AppendBatcher({ lingerMs: 1, maxRecords: 10, send: async () => {
      if (fail) throw new Error('broker away');
    } });
    const results = await Promise.allSettled([b.append([rec(1)]), b.append([rec(2)])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(b.append([rec(3)])).resolves.toBeUndefined();
  });
});

describe('AppendBatcher: idle flush', () => {
  test('with nothing outstanding, records of one turn leave together at its end, without the linger', async () => {
    const sent: string[][] = [];
    const b = new AppendBatcher({ lingerMs: 60_000, maxRecords: 100, idleFlush: true, send: async (rs) => void sent.push(rs.map((r) => r.value.toString())) });
    const started = Date.now();
    await Promise.all([b.append([rec(1)]), b.append([rec(2), rec(3)])]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(sent).toEqual([['v1', 'v2', 'v3']]);
  });

  test('while a request is outstanding, what arrives lingers and leaves in one request', async () => {
    const sent: string[][] = [];
    const answers: Array<() => void> = [];
    const b = new AppendBatcher({
      lingerMs: 20, maxRecords: 100, idleFlush: true,
      send: (rs) => new Promise<void>((resolve) => {
        sent.push(rs.map((r) => r.value.toString()));
        answers.push(resolve);
      }),
    });
    const first = b.append([rec(1)]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([['v1']]);
    const later = [b.append([rec(2)]), new Promise((r) => setTimeout(r, 5)).then(() => b.append([rec(3)]))];
    await new Promise((r) => setTimeout(r, 60));
    expect(sent).toEqual([['v1'], ['v2', 'v3']]);
    answers.forEach((a) => a());
    await Promise.all([first, ...later]);
  });
});

describe('AppendBatcher: requests outstanding', () => {
  test('past maxInFlight, records gather and leave together when a request is answered', async () => {
    const sent: string[][] = [];
    const answers: Array<() => void> = [];
    let onSend = () => undefined as void;
    const b = new AppendBatcher({
      lingerMs: 60_000, maxRecords: 100, maxInFlight: 1,
      send: (rs) => new Promise<void>((resolve) => {
        sent.push(rs.map((r) => r.value.toString()));
        answers.push(resolve);
        onSend();
      }),
    });
    const first = b.append([rec(1)]);
    b.flush();
    expect(sent).toEqual([['v1']]);
    const later = [b.append([rec(2)]), b.append([rec(3)])];
    b.flush(); // synchronous: nothing leaves while the one request is outstanding
    expect(sent).toHaveLength(1);
    const sentAgain = new Promise<void>((resolve) => (onSend = resolve));
    answers[0]();
    await first;
    await sentAgain; // on the answer, not on the (one minute) linger
    expect(sent).toEqual([['v1'], ['v2', 'v3']]);
    answers[1]();
    await Promise.all(later);
  });

  test('a failed request frees its place: what waited is sent', async () => {
    let calls = 0;
    const b = new AppendBatcher({ lingerMs: 0, maxRecords: 100, maxInFlight: 1, send: async () => {
      calls++;
      if (calls === 1) throw new Error('broker away');
    } });
    const first = b.append([rec(1)]);
    b.flush();
    const results = await Promise.allSettled([first, b.append([rec(2)])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(calls).toBe(2);
  });
});

describe('isDeterministicFailure: what poison isolation may refuse', () => {
  const pg = (code: string) => Object.assign(new Error('db'), { code });
  test('PostgreSQL data exceptions and integrity violations, and JavaScript errors of pure code', () => {
    expect(isDeterministicFailure(pg('22021'))).toBe(true); // invalid byte sequence (NUL)
    expect(isDeterministicFailure(pg('22003'))).toBe(true); // numeric out of range
    expect(isDeterministicFailure(pg('23514'))).toBe(true); // check violation
    expect(isDeterministicFailure(new TypeError('x is undefined'))).toBe(true);
    expect(isDeterministicFailure(new RangeError('bad'))).toBe(true);
  });
  test('never an outage: connection, lock, resource errors, or a moved stored offset are retried', () => {
    expect(isDeterministicFailure(pg('08006'))).toBe(false); // connection failure
    expect(isDeterministicFailure(pg('40001'))).toBe(false); // serialization failure
    expect(isDeterministicFailure(pg('40P01'))).toBe(false); // deadlock
    expect(isDeterministicFailure(pg('57P01'))).toBe(false); // admin shutdown
    expect(isDeterministicFailure(pg('53300'))).toBe(false); // too many connections
    expect(isDeterministicFailure(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isDeterministicFailure(new Error('stored offset of t[0] moved under us (expected 5)'))).toBe(false);
    expect(isDeterministicFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
  });
});
