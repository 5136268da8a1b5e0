import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

// Removed after the file's tests too, by the afterAll this module registers as a file imports
// it: a path made outside a test (in a beforeAll, say) has no test to end, and in a concurrent
// test (`describe.concurrent`) vitest may give the hook to another test, one already ended, so
// it never runs (a real-limiters trial left its whole folder in $TMPDIR, failing a CI run).
const removedAfterFile: string[] = [];
afterAll(() => {
  for (const path of removedAfterFile.splice(0)) rmSync(path, { recursive: true, force: true });
});

/** Removes `path` when the current test ends, and in any case after the file's tests. */
export function removeAfterTest(path: string): void {
  removedAfterFile.push(path);
  try {
    onTestFinished(() => rmSync(path, { recursive: true, force: true }));
  } catch {
    // Outside a test: the afterAll above removes it.
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
