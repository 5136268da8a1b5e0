import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the whole run a temporary folder of its own, removed at the end, so that the suite
 * leaves $TMPDIR as it found it even when a test is killed before its own clean-up runs. A
 * test that leaves anything there fails the run: each must remove what it made.
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'pets-suite-'));
  process.env.TMPDIR = dir;
  return () => {
    const left = readdirSync(dir);
    // What is inside says which test made it (a journal, a rate state, a sandbox's data).
    const inside = left.flatMap((entry) => {
      try {
        return readdirSync(join(dir, entry), { recursive: true }).map((path) => `${entry}/${path}`);
      } catch {
        return [entry];
      }
    });
    rmSync(dir, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (left.length > 0) {
      throw new Error(
        `the tests left ${left.length} entries in $TMPDIR: ${left.slice(0, 10)}; inside: ${inside.slice(0, 20).join(', ')}`,
      );
    }
  };
}
