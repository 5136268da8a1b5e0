import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

// Made outside a test (in a beforeAll, say), where a hook registered then would never run:
// removed after the file's tests, by the afterAll this module registers as a file imports it.
const removedAfterFile: string[] = [];
afterAll(() => {
  for (const path of removedAfterFile.splice(0)) rmSync(path, { recursive: true, force: true });
});

/** Removes `path` when the current test ends, or after the file's tests when called outside one. */
export function removeAfterTest(path: string): void {
  try {
    onTestFinished(() => rmSync(path, { recursive: true, force: true }));
  } catch {
    removedAfterFile.push(path);
  }
}

/** A fresh folder in $TMPDIR, its name starting with `prefix`, removed after the test. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  removeAfterTest(dir);
  return dir;
}

/** A fresh config folder per call, removed after the test. */
export function tempConfigDir(): string {
  return join(tempDir('pets-test-'), 'config');
}
