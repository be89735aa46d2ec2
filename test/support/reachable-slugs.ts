/**
 * The error slugs a route's code can reach, read from the source text (no type checker): the catalogue slugs
 * written in the route's handler (`router.post('/v1/...', ..., validator.for('<operationId>'), ...)`), in
 * every function it calls that is declared in the same file or imported from a relative path (transitively),
 * and in the processor's handler (services/domain/apply.ts) of every command type those bodies submit (the
 * commands a handler itself writes, follow-ups the processor runs later, answer no request and are not followed).
 * Over-approximate by design: a function counts whole, whatever branch the route takes through it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { errorCatalog, type ErrorSlug } from '../../services/domain/errors';

const root = path.resolve(__dirname, '../..');
const catalogue = new Set(Object.keys(errorCatalog));
const texts = new Map<string, string>();

function textOf(file: string): string {
  let text = texts.get(file);
  if (text === undefined) {
    // Comments name codes without raising them.
    text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
    texts.set(file, text);
  }
  return text;
}

function resolveModule(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch { /* next */ }
  }
  throw new Error(`cannot resolve ${spec} from ${from}`);
}

/** Named value imports of relative modules: local name → [file, exported name]. */
function importsOf(file: string): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const m of textOf(file).matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']+)'/g)) {
    if (m[1]) continue;
    const target = resolveModule(file, m[3]);
    for (const part of m[2].split(',').map((p) => p.trim()).filter((p) => p && !p.startsWith('type '))) {
      const [exported, local] = part.split(/\s+as\s+/);
      out.set(local ?? exported, [target, exported]);
    }
  }
  return out;
}

/**
 * The statement that begins at `start`: up to its `;` outside brackets, or the `}` that ends a line at depth 0
 * (a function declaration's body; a return type's `{ ... }>` does not end a line).
 */
function statementAt(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{' || ch === '(' || ch === '[') depth++;
    else if (ch === '}' || ch === ')' || ch === ']') {
      depth--;
      if (depth < 0) return text.slice(start, i);
      if (depth === 0 && ch === '}' && /^[ \t]*(\r?\n|$)/.test(text.slice(i + 1, i + 3))) return text.slice(start, i + 1);
    } else if (ch === ';' && depth === 0) return text.slice(start, i);
  }
  return text.slice(start);
}

/** The declarations of `name` in the file (a function, or a const/let it is assigned to). */
function declarationsOf(file: string, name: string): string[] {
  const text = textOf(file);
  const re = new RegExp(`(?:function\\s+${name}\\s*[<(]|(?:const|let)\\s+${name}\\s*(?::[^=]+)?=[^=>])`, 'g');
  return [...text.matchAll(re)].map((m) => statementAt(text, m.index!));
}

const handlerOf = (() => {
  const apply = path.join(root, 'services/domain/apply.ts');
  const imports = importsOf(apply);
  const table = new Map<string, [string, string]>();
  for (const m of textOf(apply).matchAll(/^\s*'([a-z_]+\.[a-z_]+)':\s*(\w+),/gm)) {
    const target = imports.get(m[2]);
    if (target) table.set(m[1], target);
  }
  return (type: string) => table.get(type);
})();

export interface Reach {
  slugs: Set<ErrorSlug>;
  commands: Set<string>;
}

/** Names never followed: the credentials, whose codes the document derives from `security` (operation-errors.ts). */
const CREDENTIALS = new Set(['requireAuth', 'authenticate', 'accountIdOf', 'authOf']);

function reachInto(file: string, body: string, reach: Reach, seen: Set<string>, inHandler: boolean): void {
  for (const m of body.matchAll(/'([a-z_]+)'/g)) if (catalogue.has(m[1])) reach.slugs.add(m[1] as ErrorSlug);
  for (const m of inHandler ? [] : body.matchAll(/\btype:\s*'([a-z_]+\.[a-z_]+)'/g)) {
    const handler = handlerOf(m[1]);
    if (!handler || reach.commands.has(m[1])) continue;
    reach.commands.add(m[1]);
    follow(handler[0], handler[1], reach, seen, true);
  }
  const imports = importsOf(file);
  for (const m of body.matchAll(/\b([A-Za-z_$][\w$]*)\s*(?:<[^<>()]*>)?\(/g)) {
    const name = m[1];
    if (CREDENTIALS.has(name)) continue;
    if (declarationsOf(file, name).length > 0) follow(file, name, reach, seen, inHandler);
    else if (imports.has(name)) follow(imports.get(name)![0], imports.get(name)![1], reach, seen, inHandler);
  }
}

function follow(file: string, name: string, reach: Reach, seen: Set<string>, inHandler: boolean): void {
  const key = `${file}#${name}#${inHandler}`;
  if (seen.has(key)) return;
  seen.add(key);
  for (const body of declarationsOf(file, name)) reachInto(file, body, reach, seen, inHandler);
}

/** Per operation id: what the handlers of this route file can reach. */
export function reachableByOperation(routeFile: string): Map<string, Reach> {
  const file = path.join(root, routeFile);
  const text = textOf(file);
  const starts = [...text.matchAll(/\brouter\.(get|post|patch|put|delete)\(/g)].map((m) => m.index!);
  const out = new Map<string, Reach>();
  starts.forEach((start, k) => {
    const chunk = text.slice(start, starts[k + 1] ?? text.length);
    const id = /validator\.for\('(\w+)'\)/.exec(chunk)?.[1];
    if (!id) return;
    const reach: Reach = { slugs: new Set(), commands: new Set() };
    // Only the registration itself, not what follows it in the file.
    reachInto(file, statementAt(text, start), reach, new Set(), false);
    out.set(id, reach);
  });
  return out;
}
