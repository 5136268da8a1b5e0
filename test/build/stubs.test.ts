import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without types
import { stubs } from '../../src/build/stubs.mjs';

interface Stub {
  package: string;
  path: RegExp;
}

const root = join(import.meta.dirname, '../..');
const require = createRequire(join(root, 'package.json'));

/** Every module specifier that a package's own JavaScript files require or import. */
function specifiersIn(packageName: string): Set<string> {
  const folder = join(root, 'node_modules', packageName);
  const found = new Set<string>();
  const pattern = /(?:require\(|import\(|from\s)\s*['"]([^'"]+)['"]/g;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(c|m)?js$/.test(entry.name)) continue;
    if (entry.parentPath.includes('node_modules', folder.length)) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const match of text.matchAll(pattern)) found.add(match[1]!);
  }
  return found;
}

// The build replaces these imports and loads undici's parts by path (src/http/undici.ts):
// both depend on undici's internals, so package.json pins its exact version, and this test
// fails when an upgrade moves what they name.
describe('the parts of dependencies the build stubs or loads by path', () => {
  it.each((stubs as Stub[]).map((stub) => [stub.package, stub.path] as const))(
    '%s still imports what the stub %s replaces',
    (packageName, path) => {
      const imported = [...specifiersIn(packageName)].filter((specifier) => path.test(specifier));
      expect(imported).not.toEqual([]);
    },
  );

  it('pins undici to the exact version installed', () => {
    const { devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(devDependencies.undici).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = JSON.parse(readFileSync(require.resolve('undici/package.json'), 'utf8'));
    expect(installed.version).toBe(devDependencies.undici);
  });

  it('finds every module of undici that src/ loads by path, the build included', () => {
    const deep = sourceFiles(join(root, 'src')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/['"](undici\/lib\/[^'"]+)['"]/g)].map(
        (match) => `${relative(root, file)}: ${match[1]}`,
      ),
    );
    // src/http/undici.ts's parts, and the parsers' bytes src/build/bundle.mjs writes out.
    expect(deep.filter((found) => found.startsWith('src/http/undici.ts')).length).toBeGreaterThan(
      5,
    );
    expect(deep.filter((found) => found.startsWith('src/build/bundle.mjs'))).toHaveLength(2);
    const missing = deep.filter((found) => {
      try {
        require.resolve(found.split(': ')[1]!);
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });

  it("still reads the esbuildDetection the build defines to leave undici's milo parser out", () => {
    const h1 = readFileSync(require.resolve('undici/lib/dispatcher/client-h1.js'), 'utf8');
    expect(h1).toMatch(/typeof esbuildDetection === 'undefined'/);
  });
});

// src/output/jq-engine.ts wraps four of the functions jq.wasm imports, by the minified names of
// the pinned jq-wasm: an upgrade that renames them must fail here, not leave pets printing nothing.
describe('the jq-wasm that src/output/jq-engine.ts wraps', () => {
  it('is pinned to the exact version installed', () => {
    const { devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const installed = JSON.parse(readFileSync(require.resolve('jq-wasm/package.json'), 'utf8'));
    expect(installed.version).toBe(devDependencies['jq-wasm']);
  });

  it('imports write(2), heap growth, abort and assert under the names pets wraps', async () => {
    const { loadJq } = await import('jq-wasm');
    const arities = await new Promise<Record<string, number>>((resolve, reject) => {
      loadJq({
        instantiateWasm(imports) {
          const runtime = (imports as { a: Record<string, (...args: unknown[]) => unknown> }).a;
          resolve(
            Object.fromEntries(['d', 'k', 'E', 'a'].map((name) => [name, runtime[name]!.length])),
          );
        },
      }).catch(reject);
    });
    expect(arities).toEqual({ d: 4, k: 1, E: 0, a: 4 });
  });
});

/** The source files of `folder`: TypeScript, and the build's scripts. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs|cjs)$/.test(entry.name))
    .filter((entry) => !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}
