/** Request validation from an OpenAPI document: unknown fields, wrong types, formats, query coercion. */
import express from 'express';
import { jsonBody } from '../../services/api/body';
import { errorHandler } from '../../services/api/errors';
import type { OpenApiDocument } from '../../services/api/openapi/operation';
import { sharedSchemas } from '../../services/api/openapi/shared-schemas';
import { RequestValidator } from '../../services/api/validate';
import { listen } from '../support/http';

const doc: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 't', version: '1', description: 't' },
  servers: [],
  components: { schemas: { ...sharedSchemas } },
  paths: {
    '/things': {
      post: {
        operationId: 'createThing',
        summary: 'x',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200 } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object', additionalProperties: false, required: ['receiver', 'items'],
                properties: {
                  receiver: { $ref: '#/components/schemas/Address' },
                  amount: { type: 'integer' },
                  items: { type: 'array', items: { type: 'object', additionalProperties: false, properties: { receiver: { $ref: '#/components/schemas/Address' } } } },
                },
              },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

let server: { base: string; close: () => Promise<void> };
beforeAll(async () => {
  const app = express();
  const v = new RequestValidator(doc);
  app.use(jsonBody);
  app.post('/things', v.for('createThing'), (_req, res) => res.json({ ok: true, query: res.locals.query }));
  app.use(errorHandler);
  server = await listen(app);
});
afterAll(() => server.close());

const valid = { receiver: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', items: [] };
async function post(body: unknown, query = '') {
  const res = await fetch(`${server.base}/things${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { error: { message: string; details: unknown } } & Record<string, unknown> };
}

test('a valid body passes and the query is coerced', async () => {
  expect(await post(valid, '?limit=10')).toEqual({ status: 200, body: { ok: true, query: { limit: 10 } } });
});

test.each([
  [{ ...valid, extra: 1 }, 'extra', /Unknown field/],
  [{ ...valid, amount: 'ten' }, 'amount', /must be integer/],
  [{ items: [] }, 'receiver', /Missing required/],
  [{ ...valid, receiver: 'not-an-address' }, 'receiver', /pattern/],
  [{ ...valid, items: [{ receiver: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }, { receiver: 5 }] }, 'items[1].receiver', /string/],
])('%j answers 400 2000 naming %s', async (body, field, message) => {
  const res = await post(body);
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 2000, slug: 'invalid_request', details: { field } });
  expect(res.body.error.message).toMatch(message);
});

test('query parameters are checked too', async () => {
  expect((await post(valid, '?limit=0')).body.error.details).toEqual({ field: 'limit' });
  expect((await post(valid, '?other=1')).body.error.details).toEqual({ field: 'other' });
});
