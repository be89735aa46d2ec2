/** openedOnce: the memo both the API-key check and the webhook signer open sealed secrets through. */
import { openedOnce } from '../../services/platform/secret-box';

test('each sealed value is opened once; a re-sealed value is opened anew; past the bound the oldest goes', () => {
  const calls: string[] = [];
  const open = openedOnce((id, sealed) => (calls.push(`${id}:${sealed}`), `secret of ${sealed}`), 2);
  expect(open('k1', 's1')).toBe('secret of s1');
  expect(open('k1', 's1')).toBe('secret of s1');
  expect(open('k1', 's2')).toBe('secret of s2'); // rotated: a new sealed value
  expect(calls).toEqual(['k1:s1', 'k1:s2']);
  open('k2', 's3'); // third entry: k1:s1, the oldest, goes
  open('k1', 's2');
  open('k1', 's1');
  expect(calls).toEqual(['k1:s1', 'k1:s2', 'k2:s3', 'k1:s1']);
});

test('a failed open is not remembered', () => {
  let fail = true;
  const open = openedOnce(() => {
    if (fail) throw new Error('wrong key');
    return 'plain';
  });
  expect(() => open('k', 's')).toThrow('wrong key');
  fail = false;
  expect(open('k', 's')).toBe('plain');
});
