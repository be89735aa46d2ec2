/**
 * Dashboard first-load weight (not a test): what index.html pulls in (scripts and stylesheets), raw,
 * gzip -9 and brotli. Run after the build:  npm run build && npx tsx bench/dashboard-size.ts
 * The budget (issue 18): under 300 KB of JavaScript compressed on the first page load.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

const dist = path.resolve(__dirname, '../web/dist');
const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
let jsGzip = 0;
for (const a of ['index.html', ...assets]) {
  const body = readFileSync(path.join(dist, a));
  const gz = gzipSync(body, { level: 9 }).length;
  if (a.endsWith('.js')) jsGzip += gz;
  console.log(`${a.padEnd(12)} raw ${kb(body.length).padStart(9)}  gzip ${kb(gz).padStart(8)}  brotli ${kb(brotliCompressSync(body).length).padStart(8)}`);
}
console.log(`first-load JavaScript, gzip: ${kb(jsGzip)} (budget 300 KB)`);
