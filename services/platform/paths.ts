import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository root, found from this file whether it runs from source (tsx, jest) or from dist/. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json')) || !existsSync(path.join(dir, 'schemas'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`repository root not found above ${__dirname}`);
    dir = parent;
  }
  return dir;
}
