import { readFileSync } from 'node:fs';

// The bundle has the version written in (src/build/bundle.mjs), so `pets --version` reads no
// file; run from source, pets reads the package.json above src/.
declare const __PETS_VERSION__: string | undefined;

let cached: string | undefined;

export function packageVersion(): string {
  if (typeof __PETS_VERSION__ === 'string') return __PETS_VERSION__;
  if (cached === undefined) {
    try {
      const url = new URL('../../package.json', import.meta.url);
      cached = (JSON.parse(readFileSync(url, 'utf8')) as { version?: string }).version;
    } catch {
      // not installed as a package: no version to tell
    }
  }
  return cached ?? '0.0.0';
}
