import {
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { monotonicMs } from './clock.js';
import { codeOf } from './errors.js';
import { pidSpace, processAlive, processName, seeProcess } from './process-alive.js';

// One lock for every file pets shares between processes: the journal, the config, the rate
// gate's state. Its one behaviour:
// - It is named by the file's real path, so a file reached through a symbolic link or `..`
//   has one lock. (A hard link is the caller's to refuse: only it knows a file may have one.)
// - `<file>.lock` is a directory holding one entry, `<pid>.<pid namespace>.<nonce>`: its
//   owner. The owner makes it whole under a private name and renames it into place, and
//   rename(2) replaces a directory only when that one is empty. So the lock is taken in one
//   atomic step, and is never seen without its owner.
// - A holder is taken for dead only when it is provably so: it ran in this PID namespace
//   (process-alive.ts) and no process has its id. A holder in another namespace (a container
//   sharing the folder) cannot be seen: its lock is a lease, which it renews by changing its
//   entry's modification time every RENEW_MS. A reader breaks the lease only after watching it
//   unchanged for LEASE_MS on its own monotonic clock: no two machines' or containers' clocks
//   are ever compared, and a live holder's lock is never broken.
// - A lock is broken by removing its owner's entry, a name no later owner can have, and then
//   renaming into the emptied place: of two racers for a stale lock, exactly one rename
//   succeeds; the other finds the winner alive. Removing by the owner's own name is what makes
//   it safe: unlinking `<file>.lock` itself (lockfile, proper-lockfile) can remove a lock
//   another racer has just taken.
// - Waits are bounded; past them the caller learns which process holds the lock.

export interface LockBusy {
  /** The process holding it, or undefined when the lock's owner cannot be read. */
  holder?: number;
  /** The holder runs in another PID namespace (a container), where its id means another process. */
  elsewhere?: boolean;
  /** A holder elsewhere whose lease has been neither seen renewed nor watched lapse yet. */
  undecided?: boolean;
  lockPath: string;
}

export type Release = () => void;

/** Thrown by the waiting takes when the lock stayed held for the whole wait. */
export class LockTimeout extends Error {
  constructor(readonly busy: LockBusy) {
    super(`${busy.lockPath} is held by ${describeHolder(busy)}`);
  }
}

/** `process 42`, `process 42 in another PID namespace`, or `another process`. */
export function describeHolder(busy: LockBusy): string {
  if (busy.holder === undefined) return 'another process';
  return `process ${busy.holder}${busy.elsewhere ? ' in another PID namespace' : ''}`;
}

export interface FileLock {
  readonly lockPath: string;
  /** Takes the lock at once, or says who holds it. */
  tryTake(): Release | LockBusy;
  /**
   * Takes the lock, or says who holds it once that holder is known to live: at once in this
   * PID namespace; in another, when its lease is seen renewed. A lease that lapses meanwhile
   * is broken. Waits at most one lease, without turning the event loop.
   */
  takeUnlessLive(): Release | LockBusy;
  /** Takes the lock, waiting up to `waitMs` without turning the event loop (short holds only). */
  takeSync(waitMs: number): Release;
  /** Takes the lock, waiting up to `waitMs`. */
  take(waitMs: number): Promise<Release>;
  /**
   * Whether another process holds the lock now and is not provably gone (a holder elsewhere
   * counts as live until its lease lapses), looked at without taking it.
   */
  heldByOther(): boolean;
}

export interface LeaseTiming {
  /** A monotonic clock, in ms. */
  monotonicMs: () => number;
  /** How often a holder renews its lease. */
  renewMs: number;
  /** How long a reader watches a lease unchanged before it breaks it. */
  leaseMs: number;
}

// A holder renews every second; ten seconds unchanged is a lapse. The margin covers an event
// loop held up by a long synchronous step (the journal renews while it replays).
const LEASE: LeaseTiming = {
  monotonicMs,
  renewMs: 1_000,
  leaseMs: 10_000,
};

const OWNER = /^(\d+)\.([0-9a-z-]+)\.[0-9a-z]+$/;
// Racers that keep emptying and refilling the place give up after this many rounds of one take.
const ROUNDS = 16;
const pause = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => Atomics.wait(pause, 0, 0, ms);

/** The real path of `file`, or of its folder when the file does not exist yet. */
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return join(realpathSync(dirname(file)), basename(file));
  }
}

const isErrno = (error: unknown, ...codes: string[]) => codes.includes(codeOf(error) ?? '');

/** The lock of `file`. Throws what realpath throws when the file's folder does not exist. */
export function fileLock(file: string, timing: LeaseTiming = LEASE): FileLock {
  return new Lock(`${realPath(file)}.lock`, timing);
}

/** A lease watched by a reader: the entry, its last stamp, and when the reader first saw it. */
interface Watch {
  entry: string;
  stamp: number;
  sinceMs: number;
}

class Lock implements FileLock {
  // This process's entry, and the private folder it is made whole in: made once, and moved
  // back there on release, so that a take and a release are a rename each (mkdir and rmdir
  // would make them ten times as slow). A lock held for a run is removed on release instead.
  private readonly owner = `${processName()}.${Math.floor(Math.random() * 2 ** 31).toString(36)}`;
  private readonly staged: string;
  private readonly entryPath: string;
  private readonly lease: Lease;
  private ready = false;
  private swept = false;
  private holding = false;
  private watch: Watch | undefined;

  constructor(
    readonly lockPath: string,
    private readonly timing: LeaseTiming,
  ) {
    this.staged = `${lockPath}.${this.owner}`;
    this.entryPath = join(lockPath, this.owner);
    this.lease = { renewedMs: Number.NEGATIVE_INFINITY, timing };
  }

  /** A lock that is `reused` keeps its folder for the next take. */
  tryTake(reused = true): Release | LockBusy {
    if (this.holding) return { holder: process.pid, lockPath: this.lockPath };
    this.prepare();
    for (let round = 0; round < ROUNDS; round++) {
      try {
        renameSync(this.staged, this.lockPath);
        return this.held(reused);
      } catch (error) {
        if (!isErrno(error, 'EEXIST', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR')) throw error;
      }
      const busy = this.holder();
      if (busy) return busy;
    }
    return { lockPath: this.lockPath };
  }

  takeUnlessLive(): Release | LockBusy {
    for (;;) {
      const taken = this.tryTake(false);
      if (typeof taken === 'function' || !taken.undecided) return taken;
      renewLeases();
      sleepSync(50);
    }
  }

  takeSync(waitMs: number): Release {
    const deadline = this.timing.monotonicMs() + waitMs;
    for (let spins = 0; ; spins++) {
      const taken = this.tryTake();
      if (typeof taken === 'function') return taken;
      // A lease being watched is watched to its end: a new wait would start watching afresh.
      if (this.timing.monotonicMs() >= deadline && !taken.undecided) throw new LockTimeout(taken);
      // Held for a moment by another process: wait a little, without an event loop turn, and
      // keep this process's own leases (a journal's) renewed meanwhile.
      renewLeases();
      sleepSync(taken.undecided ? 50 : spins < 10 ? 0.2 : 2);
    }
  }

  async take(waitMs: number): Promise<Release> {
    const deadline = this.timing.monotonicMs() + waitMs;
    for (;;) {
      const taken = this.tryTake();
      if (typeof taken === 'function') return taken;
      if (this.timing.monotonicMs() >= deadline && !taken.undecided) throw new LockTimeout(taken);
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
  }

  heldByOther(): boolean {
    return !this.holding && this.holder() !== undefined;
  }

  private prepare(): void {
    if (this.ready) return;
    if (!this.swept) sweepDead(this.lockPath);
    this.swept = true;
    mkdirSync(this.staged, { mode: 0o700 });
    mkdirSync(join(this.staged, this.owner), { mode: 0o700 });
    this.ready = true;
    atExit.add(this.cleanUp);
  }

  private readonly cleanUp = () => {
    atExit.delete(this.cleanUp);
    leases.delete(this.entryPath);
    removeFolder(this.holding ? this.lockPath : this.staged, this.owner);
    this.ready = this.holding = false;
  };

  /** Holds the lock just taken: its lease renewed from now until it is released. */
  private held(reused: boolean): Release {
    this.holding = true;
    this.ready = false;
    this.watch = undefined;
    // Renewed on taking too, once a renewal is due: a process that takes and releases the
    // lock over and over shows a reader that never finds it free a lease that changes.
    leases.set(this.entryPath, this.lease);
    if (this.timing.monotonicMs() - this.lease.renewedMs >= this.timing.renewMs) {
      renew(this.entryPath, this.lease);
    }
    renewer ??= setInterval(renewLeases, this.timing.renewMs).unref();
    return () => {
      if (!this.holding) return;
      this.holding = false;
      leases.delete(this.entryPath);
      try {
        // Still ours? A lease broken while this process was stopped (a frozen container)
        // leaves the place to another owner, whose lock moving the folder would take along.
        statSync(this.entryPath);
        if (reused) {
          renameSync(this.lockPath, this.staged);
          this.ready = true;
          return;
        }
        rmdirSync(this.entryPath);
        rmdirSync(this.lockPath);
      } catch {
        // Broken, or taken by another owner as soon as it was empty: free, either way.
      }
      atExit.delete(this.cleanUp);
    };
  }

  /** Who holds the lock now: undefined when its place is free, or its holder is gone. */
  private holder(): LockBusy | undefined {
    const lockPath = this.lockPath;
    let entries: string[];
    try {
      entries = readdirSync(lockPath);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      // ENOTDIR: a file where the lock should be, which pets never makes.
      if (isErrno(error, 'ENOTDIR')) return { lockPath };
      throw error;
    }
    if (entries.length === 0) return undefined;
    const entry = entries[0]!;
    const owner = entries.length === 1 ? OWNER.exec(entry) : null;
    if (!owner) return { lockPath };
    const holder = Number(owner[1]);
    const space = owner[2]!;
    if (space === pidSpace()) {
      if (processAlive(holder)) return { holder, lockPath };
    } else {
      const lease = this.watchLease(entry);
      if (lease !== 'lapsed')
        return { holder, lockPath, elsewhere: true, undecided: lease === 'watching' };
    }
    try {
      rmdirSync(join(lockPath, entry));
    } catch (error) {
      // Gone: another racer broke it first. Anything else: not a lock pets made.
      if (!isErrno(error, 'ENOENT')) return { lockPath };
    }
    return undefined;
  }

  /** What this reader has seen of the lease held by `entry`, on its own clock. */
  private watchLease(entry: string): 'watching' | 'renewed' | 'lapsed' {
    let stamp: number;
    try {
      stamp = statSync(join(this.lockPath, entry)).mtimeMs;
    } catch {
      // Released or broken while this reader looked: as good as renewed, look again.
      return 'renewed';
    }
    const nowMs = this.timing.monotonicMs();
    const seen = this.watch;
    if (!seen || seen.entry !== entry || seen.stamp !== stamp) {
      this.watch = { entry, stamp, sinceMs: nowMs };
      return seen?.entry === entry ? 'renewed' : 'watching';
    }
    return nowMs - seen.sinceMs >= this.timing.leaseMs ? 'lapsed' : 'watching';
  }
}

// The entries of the locks this process holds, with when each was last renewed.
const leases = new Map<string, Lease>();
let renewals = 0;
let renewer: NodeJS.Timeout | undefined;

/**
 * Renews each lease this process holds that is due: its entry's modification time set to a
 * new value (a count, not a time: only a change is ever looked at). Called by a timer, and by
 * whatever holds the event loop for long (a wait for a lock, a journal's replay).
 */
export function renewLeases(): void {
  for (const [entry, lease] of leases) {
    if (lease.timing.monotonicMs() - lease.renewedMs >= lease.timing.renewMs) renew(entry, lease);
  }
}

interface Lease {
  renewedMs: number;
  timing: LeaseTiming;
}

function renew(entry: string, lease: Lease): void {
  lease.renewedMs = lease.timing.monotonicMs();
  renewals++;
  try {
    utimesSync(entry, renewals, renewals);
  } catch {
    // Released meanwhile, or its folder removed: the holder finds out as it releases.
  }
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

/** Removes the private folders that processes now provably dead left beside the lock (a kill -9). */
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
    if (OWNER.test(owner) && seeProcess(owner) === 'gone') {
      removeFolder(join(dirname(lockPath), name), owner);
    }
  }
}
