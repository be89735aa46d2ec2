/** Which database errors are "unavailable for now" (a 503 the client retries, the relay waits) rather than bugs. */
import { isConnectionError } from '../../services/platform/db/pool';

const pgError = (code: string) => Object.assign(new Error('pg'), { code });

test.each(['08006', '57P01', '57P03', '53300', 'ECONNREFUSED'])('%s is the database unavailable', (code) => {
  expect(isConnectionError(pgError(code))).toBe(true);
});

test.each(['23505', '22021', '53100', '42P01'])('%s is not', (code) => {
  expect(isConnectionError(pgError(code))).toBe(false);
});

test('a terminated connection without a code is unavailable', () => {
  expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
});
