/** The document's operations as the API matches them before reading a body (services/api/openapi/operation-paths.ts). */
import { buildDocument } from '../../services/api/openapi/document';
import { operationMatcher } from '../../services/api/openapi/operation-paths';

const isOperation = operationMatcher(buildDocument());

test('every declared method and path matches, parameters as one segment; nothing else does', () => {
  expect(isOperation('POST', '/v1/orders')).toBe(true);
  expect(isOperation('GET', '/v1/orders/ord_123')).toBe(true);
  expect(isOperation('HEAD', '/v1/orders/ord_123')).toBe(true);
  expect(isOperation('POST', '/v1/orders/ord_123/reclaim')).toBe(true);
  expect(isOperation('DELETE', '/v1/orders')).toBe(false);
  expect(isOperation('POST', '/v1/anything')).toBe(false);
  expect(isOperation('GET', '/v1/orders/ord_1/extra/more')).toBe(false);
  expect(isOperation('POST', '/v1/orders/a/b/reclaim')).toBe(false);
});
