import { mkdir, rm, stat } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';

const LOCK_WAIT_MS = 5_000;
const LOCK_STALE_MS = 30_000;

// mkdir is atomic on every file system Node supports, so it serves as a cross-process mutex.
export async function lock(lockPath: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lockPath, { mode: 0o700 });
      return () => rm(lockPath, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = await stat(lockPath).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > LOCK_STALE_MS) {
      await rm(lockPath, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new UsageError(`the config is locked by another pets process (${lockPath})`, {
        hint: 'Wait for it to finish; if none is running, delete that folder.',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
  }
}
