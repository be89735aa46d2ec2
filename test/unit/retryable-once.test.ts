/**
 * The Kafka client's connect is made once and shared (RetryableOnce). A connect that failed while the
 * broker was away must not be kept: kept, it was rethrown to every later caller for the life of the
 * process (make chaos: a role group restarted during a Kafka outage could never append again).
 */
import { RetryableOnce } from '../../services/platform/kafka';

test('callers share one pending or made result; make runs once', async () => {
  const once = new RetryableOnce<number>();
  let made = 0;
  const make = async () => ++made;
  const [a, b] = await Promise.all([once.get(make), once.get(make)]);
  expect([a, b, await once.get(make), made]).toEqual([1, 1, 1, 1]);
});

test('a failure reaches the callers waiting for it, then is forgotten: the next call makes it again', async () => {
  const once = new RetryableOnce<string>();
  let attempt = 0;
  const make = async () => {
    attempt += 1;
    if (attempt === 1) throw new Error('ECONNREFUSED');
    return `connected on attempt ${attempt}`;
  };
  const first = [once.get(make), once.get(make)];
  await expect(first[0]).rejects.toThrow('ECONNREFUSED');
  await expect(first[1]).rejects.toThrow('ECONNREFUSED');
  expect(await once.get(make)).toBe('connected on attempt 2');
  expect(await once.get(make)).toBe('connected on attempt 2');
});

test('forget releases what was made, skips what failed, and the next get makes anew', async () => {
  const once = new RetryableOnce<{ id: number }>();
  const released: number[] = [];
  let id = 0;
  await once.get(async () => ({ id: ++id }));
  await once.forget(async (v) => void released.push(v.id));
  expect((await once.get(async () => ({ id: ++id }))).id).toBe(2);
  const failed = new RetryableOnce<{ id: number }>();
  failed.get(async () => { throw new Error('down'); }).catch(() => undefined);
  await failed.forget(async (v) => void released.push(v.id));
  expect(released).toEqual([1]);
});

test('drop forgets only the result it names: a newer one made since stays shared', async () => {
  const once = new RetryableOnce<string>();
  const released: string[] = [];
  const old = once.get(async () => 'old producer');
  once.drop(old, async (v) => void released.push(v));
  const fresh = once.get(async () => 'new producer');
  once.drop(old, async (v) => void released.push(v));
  expect(await once.get(async () => 'unused')).toBe('new producer');
  expect(await fresh).toBe('new producer');
  await new Promise((r) => setImmediate(r));
  expect(released).toEqual(['old producer']);
});
