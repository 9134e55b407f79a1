import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The shape of `src/`, checked over its import graph (docs/ARCHITECTURE.md draws it):
 * modules import only modules below them, through their `index.ts`; the runtime's layers import
 * only downwards; no two files import each other, directly or around a circle.
 */

/** Top to bottom; a module imports only modules on a lower line, never one on its own line. */
const MODULE_ORDER: readonly (readonly string[])[] = [
  ['app'], // src/*.ts: main, app.module, app.factory, rotate-secrets
  ['trajectory'], // reads conversations, runs and traces (observe) alike
  ['health', 'observe', 'web', 'openai'],
  ['runtime'],
  ['tool', 'memory'],
  ['conversation'],
  ['rag', 'workdir'], // workdir: a conversation's files (conversation serves and forks them, tools use them)
  ['workspace'],
  ['model'],
  ['security'],
  ['graphql'],
  ['database'],
  ['common', 'config', 'generated'],
];

/** The runtime's folders, top to bottom; a file imports its own folder or one below it. */
const RUNTIME_LAYERS = ['api', 'loop', 'events', 'store', 'cluster'] as const;

const SRC = resolve(__dirname);
const ROOT = dirname(SRC);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const known = new Set<string>();
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined; // a package
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) if (known.has(candidate)) return candidate;
  return base.startsWith(join(SRC, 'generated')) ? join(SRC, 'generated', 'prisma', 'client.ts') : undefined;
}

interface Edge {
  from: string;
  to: string;
}

const files = sourceFiles(SRC);
files.forEach((file) => known.add(file));
const edges: Edge[] = files.flatMap((from) =>
  ts
    .preProcessFile(readFileSync(from, 'utf8'), true, true)
    .importedFiles.map(({ fileName }) => resolveImport(from, fileName))
    .filter((to): to is string => to !== undefined)
    .map((to) => ({ from, to })),
);

const rel = (path: string) => relative(ROOT, path);
const moduleOf = (path: string): string => {
  const [first, second] = relative(SRC, path).split('/');
  return second === undefined ? 'app' : first;
};
const levelOf = (module: string): number => {
  const level = MODULE_ORDER.findIndex((line) => line.includes(module));
  if (level < 0) throw new Error(`src/${module} is not in MODULE_ORDER (src/import-graph.spec.ts): place it`);
  return level;
};
const isSpec = (path: string) => path.endsWith('.spec.ts');
const across = edges.filter(({ from, to }) => moduleOf(from) !== moduleOf(to));

describe('the import graph of src/', () => {
  it('every module has its place in the order', () => {
    for (const file of files) expect(() => levelOf(moduleOf(file))).not.toThrow();
  });

  it('modules import only modules below them', () => {
    const upwards = across
      .filter(({ from, to }) => levelOf(moduleOf(to)) <= levelOf(moduleOf(from)))
      .map(({ from, to }) => `${rel(from)} → ${rel(to)}`);
    expect(upwards).toEqual([]);
  });

  it("another module is reached through its index.ts, never a file inside it (specs may wire internals)", () => {
    const inside = across
      .filter(({ from, to }) => !isSpec(from) && moduleOf(to) !== 'generated' && to !== join(SRC, moduleOf(to), 'index.ts'))
      .map(({ from, to }) => `${rel(from)} → ${rel(to)}`);
    expect(inside).toEqual([]);
  });

  it("the runtime's layers import only their own or lower ones: api → loop → events → store → cluster", () => {
    const layerOf = (path: string): number | undefined => {
      const [module, folder] = relative(SRC, path).split('/');
      const layer = RUNTIME_LAYERS.indexOf(folder as (typeof RUNTIME_LAYERS)[number]);
      return module === 'runtime' && layer >= 0 ? layer : undefined;
    };
    const upwards = edges
      .filter(({ from, to }) => {
        const [a, b] = [layerOf(from), layerOf(to)];
        return a !== undefined && b !== undefined && b < a;
      })
      .map(({ from, to }) => `${rel(from)} → ${rel(to)}`);
    const loose = files.filter((file) => moduleOf(file) === 'runtime' && layerOf(file) === undefined).map(rel);
    expect(upwards).toEqual([]);
    expect(loose.sort()).toEqual(['src/runtime/index.ts', 'src/runtime/runtime.module.ts']);
  });

  it('no file imports itself back, directly or around a circle', () => {
    expect(circles(files, edges).map((circle) => circle.map(rel).join(' → '))).toEqual([]);
  });
});

/** The strongly connected components of more than one file (Tarjan's algorithm). */
function circles(nodes: string[], links: Edge[]): string[][] {
  const next = new Map<string, string[]>(nodes.map((node) => [node, []]));
  for (const { from, to } of links) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}
