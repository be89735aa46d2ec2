// Bundles the dashboard (web/src/main.ts) with esbuild into web/dist, with its HTML and CSS. Run by
// `npm run build` after tsc type-checks it (web/tsconfig.json). No CDN: everything the page loads is here.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src/main.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  sourcemap: false,
  legalComments: 'eof',
  logLevel: 'warning',
});
for (const f of ['index.html', 'style.css']) copyFileSync(join(here, f), join(out, f));
