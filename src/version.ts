import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version, read from package.json once (both src/ and dist/ sit beside it). */
export function packageVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
  return cached;
}
