import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
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

  it('pins undici to an exact version', () => {
    const { devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(devDependencies.undici).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('finds every module of undici that src/ loads by path', () => {
    const httpFolder = join(root, 'src/http');
    const deep = readdirSync(httpFolder)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
      .flatMap((name) => [
        ...readFileSync(join(httpFolder, name), 'utf8').matchAll(/['"](undici\/lib\/[^'"]+)['"]/g),
      ])
      .map((match) => match[1]!);
    expect(deep.length).toBeGreaterThan(0);
    for (const specifier of deep) expect(() => require.resolve(specifier)).not.toThrow();
  });
});
