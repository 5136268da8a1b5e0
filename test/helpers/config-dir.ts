import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/** Removes `path` when the current test ends, or after the file's tests when called outside one. */
export function removeAfterTest(path: string): void {
  const remove = () => rmSync(path, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
}

/** A fresh config folder per call, removed after the test. */
export function tempConfigDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pets-test-'));
  removeAfterTest(dir);
  return join(dir, 'config');
}
