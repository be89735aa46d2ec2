/**
 * The import graph of `services/` and `topics/`, held against the house's layers (docs/architecture.md):
 *
 *   0  services/domain/, services/identity/, topics/
 *   1  services/platform/
 *   2  every role and feature folder (processor/, orders/, delivery/, chain/, batches/, ...)
 *   3  services/api/
 *   4  services/ops/, services/roles.ts, services/runtime.ts, services/main.ts
 *
 * An import from a lower layer into a higher one "runs back up". Type-only imports count: they tie the
 * files together for a reader as much as value imports do. A circle is a strongly connected set of two or
 * more files (or a file importing itself), looked for in the layered tree and in the two programs beside
 * it, the devnet (infra/devnet/src/) and the dashboard (web/src/).
 *
 *   npx tsx infra/code/import-layers.ts          prints every back-up import and circle; exit 1 past the bounds
 *   npx tsx infra/code/import-layers.ts --json   the same as JSON
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

export interface ImportEdge {
  from: string;
  to: string;
}

export interface ImportReport {
  files: number;
  edges: number;
  backUp: ImportEdge[];
  circles: string[][];
}

/** The bounds issue 35 set: at most one import back up, no circles. */
export const MAX_BACK_UP_IMPORTS = 1;

/** The layer of a repository-relative path, or undefined for files outside the layered tree. */
export function layerOf(path: string): number | undefined {
  if (path.startsWith('topics/')) return 0;
  if (!path.startsWith('services/')) return undefined;
  const rest = path.slice('services/'.length);
  if (!rest.includes('/')) return ['roles.ts', 'runtime.ts', 'main.ts'].includes(rest) ? 4 : 2;
  const folder = rest.slice(0, rest.indexOf('/'));
  if (folder === 'domain' || folder === 'identity') return 0;
  if (folder === 'platform') return 1;
  if (folder === 'api') return 3;
  if (folder === 'ops') return 4;
  return 2;
}

function sourceFiles(root: string, folder: string): string[] {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(folder, name);
    if (statSync(join(root, path)).isDirectory()) found.push(...sourceFiles(root, path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

function resolveImport(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return undefined;
}

/** The folders whose files are read: the layered tree, then the programs checked for circles only. */
const FOLDERS = ['services', 'topics', 'infra/devnet/src', 'web/src'];

/** Every relative import (value, type-only, re-export, dynamic) between the files read. */
export function importEdges(root: string): { files: string[]; edges: ImportEdge[] } {
  const files = FOLDERS.flatMap((folder) => sourceFiles(root, folder)).sort();
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const info = ts.preProcessFile(readFileSync(join(root, from), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const to = resolveImport(root, from, ref.fileName);
      if (to !== undefined && known.has(to)) targets.add(to);
    }
    for (const to of targets) edges.push({ from, to });
  }
  return { files, edges };
}

/** Tarjan's strongly connected components, keeping those that form a circle. */
export function circlesOf(files: string[], edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    const selfImport = component.length === 1 && (next.get(v) ?? []).includes(v);
    if (component.length > 1 || selfImport) circles.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return circles;
}

export function importReport(root: string): ImportReport {
  const { files, edges } = importEdges(root);
  const layered = ({ from, to }: ImportEdge) => layerOf(from) !== undefined && layerOf(to) !== undefined;
  const backUp = edges.filter((e) => layered(e) && layerOf(e.from)! < layerOf(e.to)!);
  return { files: files.length, edges: edges.length, backUp, circles: circlesOf(files, edges) };
}

if (require.main === module) {
  const report = importReport(resolve(__dirname, '../..'));
  if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(`${report.files} files, ${report.edges} imports`);
    console.log(`${report.backUp.length} import(s) back up the layers (at most ${MAX_BACK_UP_IMPORTS}):`);
    for (const { from, to } of report.backUp) console.log(`  ${from} (layer ${layerOf(from)}) -> ${to} (layer ${layerOf(to)})`);
    console.log(`${report.circles.length} circle(s):`);
    for (const circle of report.circles) console.log(`  ${circle.join(' <-> ')}`);
  }
  process.exit(report.backUp.length > MAX_BACK_UP_IMPORTS || report.circles.length > 0 ? 1 : 0);
}
