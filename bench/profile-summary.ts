/**
 * Summarises `node --cpu-prof` profiles (BENCH_PROF_DIR of bench/orders.ts) by self time:
 *   npx tsx bench/profile-summary.ts /tmp/prof-orders/*.cpuprofile
 * For each profile: the share of idle, GC and program; self time per package (node_modules/<name>),
 * per node: module and per file of the service; and self time charged to the nearest frame of the
 * service's own code (services/ or bench/), which says which of our functions the library time serves.
 * BENCH_PROFILE_TOP (default 15) rows per list.
 */
import fs from 'node:fs';

interface Frame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: Frame; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 15);
const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)']);
const ours = (url: string) => /\/(services|bench)\//.test(url) && !url.includes('node_modules');

function category(frame: Frame): string {
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg) return pkg[1];
  if (ours(frame.url)) return frame.url.split(/\/(?=services\/|bench\/)/)[1];
  if (frame.url.startsWith('node:')) return frame.url;
  return frame.functionName || '(native)';
}

function summarise(file: string): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    self.set(id, (self.get(id) ?? 0) + dt);
  });
  const byCategory = new Map<string, number>();
  const byOwnFrame = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, t: number) => map.set(key, (map.get(key) ?? 0) + t);
  for (const [id, t] of self) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    add(byCategory, category(frame), t);
    if (SPECIAL.has(frame.functionName)) continue;
    let owner = '(no frame of ours)';
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = (byId.get(cur) as ProfileNode).callFrame;
      if (ours(f.url)) {
        owner = `${f.url.split(/\/(?=services\/|bench\/)/)[1]}:${f.functionName || '(anonymous)'}`;
        break;
      }
    }
    add(byOwnFrame, owner, t);
  }
  const pct = (t: number) => `${((100 * t) / total).toFixed(1)} %`;
  const top = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP).map(([k, t]) => `${k} ${pct(t)}`).join(', ');
  console.log(`== ${file} (${(total / 1e6).toFixed(1)} s sampled)`);
  console.log(`  self time by package or file: ${top(byCategory)}`);
  console.log(`  self time by nearest frame of ours: ${top(byOwnFrame)}`);
}

for (const file of process.argv.slice(2)) summarise(file);
