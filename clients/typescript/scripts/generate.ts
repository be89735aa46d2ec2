/**
 * `npm run generate` (after changing an API schema; never at build time): writes the OpenAPI document the
 * API serves at /v1/openapi.json, built by the service's own code (no running server needed), and the
 * TypeScript types openapi-typescript makes from it, into clients/typescript/generated/. Both are committed,
 * so a review sees every change of the API; test/unit/openapi/committed-document.test.ts fails when they
 * differ from what the code generates, and the breaking-change check compares with the last commit's copy.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderDocument, renderTypes } from './render';

async function main(): Promise<void> {
  const out = path.resolve(__dirname, '..', 'generated');
  mkdirSync(out, { recursive: true });
  const json = renderDocument();
  writeFileSync(path.join(out, 'openapi.json'), json);
  writeFileSync(path.join(out, 'schema.ts'), await renderTypes(json));
  console.log(`generated ${path.relative(process.cwd(), out)}/openapi.json and schema.ts (${Object.keys(JSON.parse(json).paths).length} paths)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
