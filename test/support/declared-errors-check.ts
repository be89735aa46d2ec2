/**
 * After every integration test file: no API in this process answered an error code its operation does not
 * declare in the API document (services/api/declared-errors.ts). An answer outside the table fails the file
 * that provoked it, naming the operation and the code: add the code to services/api/openapi/operation-errors.ts
 * (and `npm run generate`) if the answer is right, or fix the route if it is not.
 */
import { undeclaredAnswers } from '../../services/api/declared-errors';

afterAll(() => {
  expect(undeclaredAnswers().map((a) => `${a.operationId} ${a.slug} (${a.method} ${a.path})`)).toEqual([]);
});
