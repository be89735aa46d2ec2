/**
 * Builds the publishable package (npm pack runs it as `prepack`): each entry bundled by esbuild as ESM
 * (.mjs) and CommonJS (.cjs), openapi-fetch left a dependency, and the declarations by tsc. Uses the
 * repository's esbuild and TypeScript (run from this checkout; the package itself needs neither).
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
rmSync(dist, { recursive: true, force: true });

const entries = { index: { platform: 'node', target: 'node22' }, browser: { platform: 'neutral', target: 'es2022' } };
for (const [name, { platform, target }] of Object.entries(entries)) {
  for (const format of ['esm', 'cjs']) {
    await build({
      entryPoints: [path.join(root, 'src', `${name}.ts`)],
      outfile: path.join(dist, `${name}.${format === 'esm' ? 'mjs' : 'cjs'}`),
      bundle: true, format, platform, target, external: ['openapi-fetch', 'node:*'], sourcemap: true, legalComments: 'none',
      // The neutral platform resolves no main fields by default; openapi-fetch is external anyway.
      mainFields: ['module', 'main'],
      banner: { js: `/* @energy-rental/client ${version} */` },
    });
  }
}
const tsc = path.resolve(root, '../../node_modules/typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
console.log(`built ${path.relative(process.cwd(), dist)} (${version})`);
