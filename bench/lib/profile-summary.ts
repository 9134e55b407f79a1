/**
 * Summarises a V8 .cpuprofile: the functions with the most self time, and the project functions
 * (src/, or the build of it) with the most inclusive time — the hot path, readable in a terminal.
 * CLI: node -r @swc-node/register bench/lib/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';
import { fmt, table } from './stats';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  let where = url.replace(/^file:\/\//, '');
  const nm = where.lastIndexOf('node_modules/');
  if (nm >= 0) where = where.slice(nm + 'node_modules/'.length);
  else where = where.replace(/^.*\/\.bench\/build\/dist\//, 'src/').replace(/^.*\/(src|bench|test)\//, '$1/');
  return `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim();
}

/** The package (node_modules/<pkg>), project folder, wasm, node internals or V8 bucket of a frame. */
function baseModuleOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (!url) {
    if (functionName.startsWith('(')) return functionName;
    return '(native)';
  }
  if (url.startsWith('wasm://')) return 'wasm';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const project = /\/(?:\.bench\/build\/dist|src)\/([^/]+)/.exec(url);
  if (project) return `src/${project[1]}`;
  return url.replace(/^file:\/\//, '');
}

function isProject(node: ProfileNode): boolean {
  const url = node.callFrame.url;
  return !url.includes('node_modules') && (url.includes('/.bench/build/dist/') || /\/src\//.test(url)) && !url.includes('/generated/');
}

export function summariseProfile(path: string, top = 20): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000; // ms
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    total += dt;
    const name = node.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') {
      if (name === '(idle)') idle += dt;
    }
    const key = label(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id);
      if (!frame || !isProject(frame)) continue;
      const k = label(frame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    }
  }
  const busy = total - idle;
  // name each wasm module after the package that calls into it (PGlite, Prisma's query compiler)
  const wasmOwner = new Map<string, Map<string, number>>();
  for (const node of profile.nodes) {
    if (!node.callFrame.url.startsWith('wasm://')) continue;
    let up = parent.get(node.id);
    while (up !== undefined && byId.get(up)?.callFrame.url.startsWith('wasm://')) up = parent.get(up);
    const caller = up !== undefined ? byId.get(up) : undefined;
    if (!caller) continue;
    const owner = baseModuleOf(caller);
    const votes = wasmOwner.get(node.callFrame.url) ?? new Map<string, number>();
    votes.set(owner, (votes.get(owner) ?? 0) + 1);
    wasmOwner.set(node.callFrame.url, votes);
  }
  const wasmName = new Map<string, string>();
  for (const [url, votes] of wasmOwner) {
    const owner = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '?';
    wasmName.set(url, `wasm called by ${owner}`);
  }
  const moduleOf = (node: ProfileNode) =>
    node.callFrame.url.startsWith('wasm://') ? (wasmName.get(node.callFrame.url) ?? 'wasm') : baseModuleOf(node);
  const byModule = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    const key = moduleOf(node);
    if (key === '(idle)') continue;
    byModule.set(key, (byModule.get(key) ?? 0) + dt);
  }
  const rows = (map: Map<string, number>) =>
    [...map.entries()]
      .filter(([key]) => !key.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, ms]) => [fmt(ms, 1), `${fmt((100 * ms) / busy, 1)}%`, key]);
  return [
    `profile ${path}`,
    'self time by module:',
    table([['ms', '% busy', 'module'], ...rows(byModule)]),
    `profile ${path}: ${fmt(total, 0)} ms sampled, ${fmt(busy, 0)} ms busy (${fmt((100 * busy) / total, 0)}%)`,
    'self time (top):',
    table([['ms', '% busy', 'function'], ...rows(self)]),
    'inclusive time of project functions (top):',
    table([['ms', '% busy', 'function'], ...rows(inclusive)]),
  ].join('\n');
}

if (require.main === module) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: profile-summary.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${summariseProfile(file, Number(top ?? 20))}\n`);
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Summarises a sampling heap profile: live bytes by allocating function and by module. */
export function summariseHeapProfile(path: string, top = 15, per = 1): string {
  const { head } = JSON.parse(readFileSync(path, 'utf8')) as { head: HeapNode };
  const bySite = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, stack: string[]) => {
    const site = label({ id: 0, callFrame: node.callFrame });
    const chain = [...stack, site];
    if (node.selfSize) {
      total += node.selfSize;
      // the allocating frame plus its nearest project caller, which is where a fix would go
      const projectCaller = [...chain].reverse().find((s) => s.includes('src/'));
      const key = projectCaller && projectCaller !== site ? `${site}  ← ${projectCaller}` : site;
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
      const mod = baseModuleOf({ id: 0, callFrame: node.callFrame });
      byModule.set(mod, (byModule.get(mod) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, chain.length > 60 ? chain.slice(-60) : chain);
  };
  walk(head, []);
  const rows = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)
      .map(([key, bytes]) => [fmt(bytes / 1024 / per, 2), `${fmt((100 * bytes) / total, 1)}%`, key]);
  return [
    `heap profile ${path}: ${fmt(total / 1024 / per, 1)} KB live${per > 1 ? ` per connection (÷${per})` : ''}`,
    table([['KB', '%', 'allocated by (module)'], ...rows(byModule)]),
    table([['KB', '%', 'allocated by (function ← nearest project caller)'], ...rows(bySite)]),
  ].join('\n');
}
