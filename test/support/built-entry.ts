/**
 * The compiled entry of a program when `npm run build` (which `make test` runs first) left one at least
 * as new as every TypeScript source it is built from, as infra/devnet/ctl.sh chooses; otherwise the
 * sources through tsx. Child processes (devnets, roles the crash tests kill and restart) then start
 * without transpiling, which on a loaded machine is most of their start-up.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const chosen = new Map<string, string[]>();

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Node arguments that run `source` (a .ts path from the repository root): the built .js, or `tsxArgs` + the source. */
export function entryArgs(source: string, sourceDirs: string[], tsxArgs: string[]): string[] {
  const known = chosen.get(source);
  if (known) return known;
  const built = path.join(ROOT, 'dist', source.replace(/\.ts$/, '.js'));
  const fresh = fs.existsSync(built) && sourceDirs.every((d) => fs.statSync(built).mtimeMs >= newestSource(path.join(ROOT, d)));
  const args = fresh ? [built] : [...tsxArgs, path.join(ROOT, source)];
  chosen.set(source, args);
  return args;
}
