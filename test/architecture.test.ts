// The layout as a rule: which folder of src/ may import which (src/README.md), and no cycle
// between files. Imports are read from the source, static, dynamic and type-only alike. And
// the guide's "functions fit a screen": none in src/ is longer than MAX_FUNCTION_LINES, and no
// class is longer than MAX_CLASS_LINES (a class that long does more than one job).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Each folder may import the folders after it, never one before it. */
const LAYERS = [
  'runtime',
  'cmd',
  'completion',
  'terminal',
  'sandbox',
  'output',
  'batch',
  'api',
  'ratelimit',
  'http',
  'config',
  'json',
  'core',
];

/** Inside cmd/: the root may import the commands, commands may import shared, not back. */
const CMD_LAYERS = ['root', 'command', 'shared'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

// `import x from '…'`, `export … from '…'`, `import '…'` and `import('…')`.
const IMPORT = /(?:import|export)\s[^'"]*?from\s*'(\.[^']+)'|import\s*\(?\s*'(\.[^']+)'/g;

/** Every file of src/ (relative, as "cmd/pets/list.ts") and the files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const imports = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) =>
      relative(SRC, resolve(dirname(file), match[1] ?? match[2]!)).replace(/\.js$/, '.ts'),
    );
    graph.set(relative(SRC, file), imports);
  }
  return graph;
}

const graph = importGraph();
const folderOf = (file: string) => file.split('/')[0]!;

function cmdLayer(file: string): string {
  if (!file.includes('/', 4)) return 'root';
  return file.startsWith('cmd/shared/') ? 'shared' : 'command';
}

/** Strongly connected groups of more than one file, or a file importing itself (Tarjan). */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of edges.get(node) ?? []) {
      if (!edges.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || edges.get(node)?.includes(node)) found.push(group.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * What no file of cmd/ may do: reach the run's deps or streams around the two doors, or write
 * to a stream. Writing to stderr goes through the terminal's notices (`terminal.stderr`),
 * which are no stream: text for a person, or JSON lines under --json.
 */
const AROUND_THE_DOORS =
  /session\.deps|deps\.io|process\.std(?:out|err|in)\b|(?<!terminal\.stderr)\.write\(/;

/** Each line of a cmd/ file that goes around the doors, as "cmd/x.ts:12: the line". */
function aroundTheDoors(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      AROUND_THE_DOORS.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
    );
}

describe('the layout of src/', () => {
  it('reads every file it checks', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('cmd/root.ts')).toContain('cmd/pets/list.ts');
  });

  it('has a layer for every folder', () => {
    const folders = new Set([...graph.keys()].filter((f) => f.includes('/')).map(folderOf));
    expect([...folders].filter((folder) => !LAYERS.includes(folder))).toEqual([]);
  });

  it('has no folder importing one above it', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => LAYERS.indexOf(folderOf(target)) < LAYERS.indexOf(folderOf(file)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('has, inside cmd/, commands that import shared pieces and never the root', () => {
    const upward = [...graph]
      .filter(([file]) => folderOf(file) === 'cmd')
      .flatMap(([file, imports]) =>
        imports
          .filter(
            (target) =>
              folderOf(target) === 'cmd' &&
              CMD_LAYERS.indexOf(cmdLayer(target)) < CMD_LAYERS.indexOf(cmdLayer(file)),
          )
          .map((target) => `${file} -> ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it('has no file in cmd/ that reaches a stream or the deps but through the two doors', () => {
    const found = sourceFiles(join(SRC, 'cmd')).flatMap((file) =>
      aroundTheDoors(relative(SRC, file), readFileSync(file, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('finds each way around the doors when one is planted', () => {
    const planted = [
      'session.deps.clock.now()',
      'const { io } = deps.io;',
      'process.stdout.columns',
      'process.stdin.isTTY',
      'io.stderr.write(text)',
      'output.write(`${line}\\n`)',
    ];
    for (const line of planted) expect(aroundTheDoors('cmd/x.ts', line)).toHaveLength(1);
    expect(aroundTheDoors('cmd/x.ts', "session.terminal.stderr.write('notice', notice)")).toEqual(
      [],
    );
  });

  it('has no cycle between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('reads side-effect imports too', () => {
    const planted = "import '../cmd/root.js';\nimport type { X } from './x.js';";
    const found = [...planted.matchAll(IMPORT)].map((match) => match[1] ?? match[2]);
    expect(found).toEqual(['../cmd/root.js', './x.js']);
  });

  it('finds a cycle when one is planted', () => {
    const planted = new Map(graph);
    planted.set('core/errors.ts', [...(graph.get('core/errors.ts') ?? []), 'cmd/root.ts']);
    expect(cycles(planted).some((group) => group.includes('core/errors.ts'))).toBe(true);
  });
});

/** The longest a function, method or arrow function of src/ may be, in lines. */
const MAX_FUNCTION_LINES = 80;

/** The longest a class of src/ may be, in lines. */
const MAX_CLASS_LINES = 300;

const isFunction = (node: ts.Node) => ts.isFunctionLike(node) && 'body' in node && !!node.body;

/** `file:line name (N lines)` for each function (or what `counted` picks) longer than `max`. */
function longFunctions(
  file: string,
  text: string,
  max: number,
  counted: (node: ts.Node) => boolean = isFunction,
): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (counted(node)) {
      const first = lineOf(node.getStart());
      const lines = lineOf(node.end) - first + 1;
      // An arrow or function expression is named by what it is assigned to.
      const named = (node as { name?: ts.Node }).name ?? (node.parent as { name?: ts.Node }).name;
      const name = named?.getText(source) ?? '(anonymous)';
      if (lines > max) found.push(`${file}:${first} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the functions of src/', () => {
  it('each fit a screen', () => {
    const long = sourceFiles(SRC).flatMap((file) =>
      longFunctions(relative(SRC, file), readFileSync(file, 'utf8'), MAX_FUNCTION_LINES),
    );
    expect(long).toEqual([]);
  });

  it('finds a long function, method or arrow function when one is planted', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  f(${i});`).join('\n');
    const planted = [
      `function long() {\n${body(79)}\n}`,
      `class C {\n  method() {\n${body(79)}\n  }\n  short() {\n${body(78)}\n  }\n}`,
      `const arrow = () => {\n${body(79)}\n};`,
      `call(function () {\n${body(79)}\n});`,
    ].join('\n');
    expect(longFunctions('planted.ts', planted, MAX_FUNCTION_LINES)).toEqual([
      'planted.ts:1 long (81 lines)',
      'planted.ts:83 method (81 lines)',
      'planted.ts:245 arrow (81 lines)',
      'planted.ts:326 (anonymous) (81 lines)',
    ]);
  });
});

describe('the classes of src/', () => {
  it('each do one job: none is longer than MAX_CLASS_LINES', () => {
    const long = sourceFiles(SRC).flatMap((file) =>
      longFunctions(
        relative(SRC, file),
        readFileSync(file, 'utf8'),
        MAX_CLASS_LINES,
        ts.isClassLike,
      ),
    );
    expect(long).toEqual([]);
  });

  it('finds a long class, declared or an expression, when one is planted', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  f${i}() {}`).join('\n');
    const planted = [
      `class Long {\n${body(299)}\n}`,
      `class Short {\n${body(298)}\n}`,
      `const Named = class {\n${body(299)}\n};`,
    ].join('\n');
    expect(longFunctions('planted.ts', planted, MAX_CLASS_LINES, ts.isClassLike)).toEqual([
      'planted.ts:1 Long (301 lines)',
      'planted.ts:602 Named (301 lines)',
    ]);
  });
});
