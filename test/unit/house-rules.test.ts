/**
 * The house's shape (docs/architecture.md), held by the tree itself: the layers and their one allowance,
 * no import circles, the processor's independence from the feature folders, tronweb behind chain/, and
 * the orders table named only by its owner and its writer.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { importEdges, importReport, MAX_BACK_UP_IMPORTS } from '../../infra/code/import-layers';

const root = resolve(__dirname, '../..');
const report = importReport(root);
const { files, edges } = importEdges(root);
const services = files.filter((f) => f.startsWith('services/'));
const text = (f: string) => readFileSync(join(root, f), 'utf8');

test('at most one import runs back up the layers, and no files import each other in a circle', () => {
  expect(report.files).toBeGreaterThan(200);
  expect(report.backUp.length).toBeLessThanOrEqual(MAX_BACK_UP_IMPORTS);
  expect(report.circles).toEqual([]);
});

test('the processor imports nothing from the batch, subscription and promo folders', () => {
  const reaching = edges.filter((e) => e.from.startsWith('services/processor/') && /^services\/(batches|subscriptions)\//.test(e.to));
  expect(reaching).toEqual([]);
  // Its promo state reads the promo rows' mapping (services/promo/store.ts) and nothing else of that folder.
  expect(edges.filter((e) => e.from.startsWith('services/processor/') && e.to.startsWith('services/promo/') && e.to !== 'services/promo/store.ts')).toEqual([]);
});

test('only services/chain/ imports tronweb', () => {
  const importers = services.filter((f) => /from 'tronweb'|require\('tronweb'\)/.test(text(f)));
  expect(importers.length).toBeGreaterThan(0);
  expect(importers.filter((f) => !f.startsWith('services/chain/'))).toEqual([]);
});

test('no file outside services/orders/ and the processor names the orders table', () => {
  const naming = services.filter((f) => /\b(FROM|JOIN|UPDATE|INTO)\s+orders\b/.test(text(f)));
  expect(naming.some((f) => f.startsWith('services/orders/'))).toBe(true);
  expect(naming.filter((f) => !f.startsWith('services/orders/') && !f.startsWith('services/processor/'))).toEqual([]);
});

test('the domain imports nothing from platform/ or any role', () => {
  expect(edges.filter((e) => e.from.startsWith('services/domain/') && !/^services\/(domain|identity)\//.test(e.to) && !e.to.startsWith('topics/'))).toEqual([]);
});
