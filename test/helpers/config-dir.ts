import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** A fresh config folder per call, removed after the test. */
export function tempConfigDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pets-test-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'config');
}
