import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * The package version, read once from the package.json above this module: one level up
 * from src/ or dist/, or two from a file in a folder of the bundle.
 */
export function packageVersion(): string {
  if (cached === undefined) {
    for (const up of ['../package.json', '../../package.json', '../../../package.json']) {
      try {
        const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
          name?: string;
          version?: string;
        };
        if (pkg.name === 'pets' && pkg.version) {
          cached = pkg.version;
          break;
        }
      } catch {
        // not at this level
      }
    }
  }
  return cached ?? '0.0.0';
}
