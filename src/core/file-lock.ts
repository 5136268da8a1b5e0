import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-alive.js';

// One lock for every file pets shares between processes: the journal, the config, the rate
// gate's state. Its one behaviour:
// - It is named by the file's real path, so a file reached through a symbolic link or `..`
//   has one lock. (A hard link is the caller's to refuse: only it knows a file may have one.)
// - `<file>.lock` is a directory holding one entry, `<pid>.<nonce>`: its owner. The owner
//   makes it whole under a private name and renames it into place, and rename(2) replaces a
//   directory only when that one is empty. So the lock is taken in one atomic step, and is
//   never seen without its owner.
// - A lock whose owner has died is broken by removing that owner's entry, a name no later
//   owner can have, and then renaming into the emptied place: of two racers for a stale lock,
//   exactly one rename succeeds; the other finds the winner alive. Removing by the
//   dead owner's own name is what makes it safe: unlinking `<file>.lock` itself (lockfile,
//   proper-lockfile) can remove a lock another racer has just taken.
// - Waits are bounded; past them the caller learns which process holds the lock.

export interface LockBusy {
  /** The process holding it, or undefined when the lock's owner cannot be read. */
  holder?: number;
  lockPath: string;
}

export type Release = () => void;

/** Thrown by the waiting takes when the lock stayed held for the whole wait. */
export class LockTimeout extends Error {
  constructor(readonly busy: LockBusy) {
    super(
      `${busy.lockPath} is held by ${busy.holder === undefined ? 'another process' : `process ${busy.holder}`}`,
    );
  }
}

export interface FileLock {
  readonly lockPath: string;
  /** Takes the lock at once, or says who holds it. */
  tryTake(): Release | LockBusy;
  /** Takes the lock, waiting up to `waitMs` without turning the event loop (short holds only). */
  takeSync(waitMs: number): Release;
  /** Takes the lock, waiting up to `waitMs`. */
  take(waitMs: number): Promise<Release>;
}

const OWNER = /^(\d+)\.[0-9a-z]+$/;
// Racers that keep emptying and refilling the place give up after this many rounds of one take.
const ROUNDS = 16;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** The real path of `file`, or of its folder when the file does not exist yet. */
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return join(realpathSync(dirname(file)), basename(file));
  }
}

const isErrno = (error: unknown, ...codes: string[]) =>
  codes.includes((error as NodeJS.ErrnoException | null)?.code ?? '');

/** The lock of `file`. Throws what realpath throws when the file's folder does not exist. */
export function fileLock(file: string): FileLock {
  const lockPath = `${realPath(file)}.lock`;

  /** Who holds the lock now: undefined when its place is free (absent or empty). */
  const holderOf = (): LockBusy | undefined => {
    let entries: string[];
    try {
      entries = readdirSync(lockPath);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      if (!isErrno(error, 'ENOTDIR')) throw error;
      // A lock file of an older pets: its pid, written whole by O_EXCL.
      const holder = Number(readText(lockPath));
      if (processAlive(holder)) return { holder, lockPath };
      removeFile(lockPath);
      return undefined;
    }
    if (entries.length === 0) return undefined;
    const owner = entries.length === 1 ? OWNER.exec(entries[0]!) : null;
    if (!owner) return { lockPath };
    const holder = Number(owner[1]);
    if (processAlive(holder)) return { holder, lockPath };
    try {
      rmdirSync(join(lockPath, entries[0]!));
    } catch (error) {
      // Gone: another racer broke it first. Anything else: not a lock pets made.
      if (!isErrno(error, 'ENOENT')) return { lockPath };
    }
    return undefined;
  };

  // This process's entry, and the private folder it is made whole in: made once, and moved
  // back there on release, so that a take and a release are one rename each.
  const owner = `${process.pid}.${Math.floor(Math.random() * 2 ** 31).toString(36)}`;
  const staged = `${lockPath}.${owner}`;
  let ready = false;
  let holding = false;

  const prepare = () => {
    if (ready) return;
    sweepDead(lockPath);
    mkdirSync(staged, { mode: 0o700 });
    mkdirSync(join(staged, owner), { mode: 0o700 });
    ready = true;
    atExit.add(cleanUp);
  };
  const cleanUp = () => {
    atExit.delete(cleanUp);
    removeFolder(holding ? lockPath : staged, owner);
    ready = holding = false;
  };

  const tryTake = (): Release | LockBusy => {
    if (holding) return { holder: process.pid, lockPath };
    prepare();
    for (let round = 0; round < ROUNDS; round++) {
      try {
        renameSync(staged, lockPath);
        holding = true;
        ready = false;
        return () => {
          if (!holding) return;
          holding = false;
          try {
            // Still ours: no other process removes the entry of a live owner.
            renameSync(lockPath, staged);
            ready = true;
          } catch {
            atExit.delete(cleanUp);
          }
        };
      } catch (error) {
        if (!isErrno(error, 'EEXIST', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR')) throw error;
      }
      const busy = holderOf();
      if (busy) return busy;
    }
    return { lockPath };
  };

  return {
    lockPath,
    tryTake,
    takeSync(waitMs) {
      const deadline = Date.now() + waitMs;
      for (let spins = 0; ; spins++) {
        const taken = tryTake();
        if (typeof taken === 'function') return taken;
        if (Date.now() >= deadline) throw new LockTimeout(taken);
        // Held for a moment by another process: wait a little, without an event loop turn.
        Atomics.wait(pause, 0, 0, spins < 10 ? 0.2 : 2);
      }
    },
    async take(waitMs) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const taken = tryTake();
        if (typeof taken === 'function') return taken;
        if (Date.now() >= deadline) throw new LockTimeout(taken);
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
      }
    },
  };
}

// The folders of this process's locks, removed as it exits.
const atExit = new Set<() => void>();
process.once('exit', () => {
  for (const cleanUp of atExit) cleanUp();
});

function removeFolder(folder: string, owner: string): void {
  try {
    rmdirSync(join(folder, owner));
    rmdirSync(folder);
  } catch {
    // already gone
  }
}

/** Removes the private folders that processes now dead left beside the lock (a kill -9). */
function sweepDead(lockPath: string): void {
  const prefix = `${basename(lockPath)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(lockPath));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const owner = name.slice(prefix.length);
    const pid = OWNER.exec(owner)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) {
      removeFolder(join(dirname(lockPath), name), owner);
    }
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // another process removed it first
  }
}
