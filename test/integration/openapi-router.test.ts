/**
 * The OpenAPI document describes exactly what the API serves: every route mounted on the express app
 * (found by walking its router layers, so routes added later are checked without editing this file)
 * is a path and method of the document served at /v1/openapi.json, and every described operation is
 * served. The typed client (clients/typescript) is generated from that document, so a route missing
 * there is a route clients cannot call.
 */
import type { Express } from 'express';
import { createApp } from '../../services/api/app';
import type { CommandBus } from '../../services/platform/command-bus';
import type { Runtime } from '../../services/runtime';
import { listen } from '../support/http';
import { dropWorld, newWorld, openBus, openRuntime, type World } from '../support/world';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Layer {
  rawPath?: string;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Express `/v1/orders/:orderId` as OpenAPI `/v1/orders/{orderId}`; anything fancier is reported, not guessed. */
function toOpenApiPath(expressPath: unknown): string {
  if (typeof expressPath !== 'string') throw new Error(`route path is not a plain string: ${String(expressPath)}`);
  if (/[*?(){}]/.test(expressPath)) throw new Error(`route path uses a pattern OpenAPI cannot describe: ${expressPath}`);
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** "METHOD /path" for every route of the app, nested routers included (mounted under their prefix). */
function servedOperations(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = prefix + toOpenApiPath(layer.route.path);
        // `_all` (router.all) would be every method: none is mounted today; fail loudly if one appears.
        for (const method of Object.keys(layer.route.methods)) found.push(`${method === '_all' ? 'ALL' : method.toUpperCase()} ${path}`);
      } else if (layer.handle.stack) {
        const mount = layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...new Set(found)].sort();
}

function describedOperations(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  const found: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) if (HTTP_METHODS.includes(method)) found.push(`${method.toUpperCase()} ${path}`);
  }
  return found.sort();
}

let world: World;
let rt: Runtime;
let bus: CommandBus;
let app: Express;
let api: { base: string; close: () => Promise<void> };

beforeAll(async () => {
  world = newWorld('openapirouter');
  rt = await openRuntime(world);
  bus = await openBus(rt);
  app = createApp({ rt, bus });
  api = await listen(app);
});

afterAll(async () => {
  await api?.close();
  await bus?.stop();
  if (world) await dropWorld(world, rt);
  await rt?.close();
});

test('the router walk finds the routes of nested routers and the app itself', () => {
  const served = servedOperations(app);
  // A route mounted on the app directly, one from a nested router, one with a path parameter.
  expect(served).toEqual(expect.arrayContaining(['GET /v1/openapi.json', 'GET /healthz', 'POST /v1/orders', 'GET /v1/orders/{orderId}']));
  expect(served.length).toBeGreaterThan(30);
});

test('every served route is described in /v1/openapi.json and every described operation is served', async () => {
  const res = await fetch(`${api.base}/v1/openapi.json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
  const served = servedOperations(app);
  const described = describedOperations(doc);
  // Compared as lists so a failure names the operations on each side.
  expect({ servedButNotDescribed: served.filter((op) => !described.includes(op)) }).toEqual({ servedButNotDescribed: [] });
  expect({ describedButNotServed: described.filter((op) => !served.includes(op)) }).toEqual({ describedButNotServed: [] });
});

test('the server URL joined with a described path is where the API answers', async () => {
  const doc = (await (await fetch(`${api.base}/v1/openapi.json`)).json()) as { servers: Array<{ url: string }> };
  // Generators build request URLs as server URL + path; the paths carry /v1 themselves.
  const url = `${api.base}${doc.servers[0].url.replace(/\/$/, '')}/v1/openapi.json`;
  expect((await fetch(url)).status).toBe(200);
});

test('every described operation has a unique operationId and declares its path parameters', async () => {
  const doc = (await (await fetch(`${api.base}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string; in: string }> }>>;
  };
  const ids: string[] = [];
  const undeclared: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method)) continue;
      ids.push(op.operationId ?? `(none: ${method} ${path})`);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      for (const name of names) if (!declared.includes(name)) undeclared.push(`${method.toUpperCase()} ${path}: ${name}`);
    }
  }
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  expect(ids.some((id) => id.startsWith('(none'))).toBe(false);
  expect(undeclared).toEqual([]);
});
