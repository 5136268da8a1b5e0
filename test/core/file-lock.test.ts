import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fileLock, LockTimeout, renewLeases } from '../../src/core/file-lock.js';
import { pidSpace } from '../../src/core/process-alive.js';
import { tempDir } from '../helpers/config-dir.js';
import { UNSHARE, unshareRefused } from '../helpers/unshare.js';
import { trials } from '../helpers/trials.js';

// The one lock of pets (journal, config, rate state), tested once: here, with real processes.

const RACE_TRIALS = Number(process.env.PETS_LOCK_RACE_TRIALS ?? trials(100, 20));

/** A pid that no process has: one that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

/** Leaves `file`'s lock as a process of this PID namespace that died holding it leaves it. */
function plantStale(file: string, pid = deadPid(), space = pidSpace()): void {
  mkdirSync(join(`${file}.lock`, `${pid}.${space}.dead1`), { recursive: true });
}

/** A monotonic clock that moves only when told. */
function manualClock() {
  let nowMs = 0;
  return {
    timing: { monotonicMs: () => nowMs, renewMs: 1_000, leaseMs: 10_000 },
    advance: (ms: number) => (nowMs += ms),
  };
}

describe('fileLock', () => {
  it('is held by one taker at a time, and free again once released', () => {
    const file = join(tempDir('pets-lock-'), 'data');
    const release = fileLock(file).tryTake();
    expect(typeof release).toBe('function');
    expect(fileLock(file).tryTake()).toEqual({ holder: process.pid, lockPath: `${file}.lock` });
    (release as () => void)();
    const again = fileLock(file).tryTake();
    expect(typeof again).toBe('function');
    (again as () => void)();
    // No lock is left; only this process's own folders, until it exits.
    const left = readdirSync(join(file, '..'));
    expect(left.filter((name) => !name.startsWith(`data.lock.${process.pid}.`))).toEqual([]);
  });

  it('is one lock for a file however it is named: a symbolic link, a path through ..', () => {
    const dir = tempDir('pets-lock-');
    const file = join(dir, 'data');
    writeFileSync(file, '');
    symlinkSync(file, join(dir, 'link'));
    mkdirSync(join(dir, 'sub'));
    const release = fileLock(join(dir, 'link')).tryTake() as () => void;
    expect(fileLock(file).tryTake()).toMatchObject({ holder: process.pid });
    expect(fileLock(join(dir, 'sub', '..', 'data')).tryTake()).toMatchObject({
      holder: process.pid,
    });
    release();
  });

  it('breaks a lock whose owner has died in this PID namespace', () => {
    const dir = tempDir('pets-lock-');
    plantStale(join(dir, 'a'));
    const a = fileLock(join(dir, 'a')).tryTake();
    expect(typeof a).toBe('function');
  });

  it('never breaks a lock whose owner runs, nor one it cannot read, nor a file in its place', () => {
    const dir = tempDir('pets-lock-');
    plantStale(join(dir, 'a'), process.ppid);
    expect(fileLock(join(dir, 'a')).tryTake()).toMatchObject({ holder: process.ppid });
    mkdirSync(join(dir, 'b.lock', 'not-an-owner'), { recursive: true });
    expect(fileLock(join(dir, 'b')).tryTake()).toEqual({ lockPath: join(dir, 'b.lock') });
    writeFileSync(join(dir, 'c.lock'), `${deadPid()}\n`);
    expect(fileLock(join(dir, 'c')).tryTake()).toEqual({ lockPath: join(dir, 'c.lock') });
    expect(readFileSync(join(dir, 'c.lock'), 'utf8')).not.toBe('');
  });

  it('takes an owner of another PID namespace for alive, whatever kill(pid, 0) says here', () => {
    const dir = tempDir('pets-lock-');
    const { timing } = manualClock();
    // A pid no process has here: in its own namespace (a container) it may well run.
    plantStale(join(dir, 'a'), deadPid(), '4026532999-0123456789abcdef');
    expect(fileLock(join(dir, 'a'), timing).tryTake()).toMatchObject({
      holder: expect.any(Number),
      elsewhere: true,
      undecided: true,
    });
    // Nor is a lock whose namespace this process cannot name its own.
    plantStale(join(dir, 'b'), deadPid(), 'unknown');
    expect(fileLock(join(dir, 'b'), timing).tryTake()).toMatchObject({ elsewhere: true });
  });

  it("breaks another namespace's lease only once watched unchanged for a whole lease", () => {
    const dir = tempDir('pets-lock-');
    const { timing, advance } = manualClock();
    plantStale(join(dir, 'a'), 7, 'elsewhere-1');
    const lock = fileLock(join(dir, 'a'), timing);
    expect(lock.tryTake()).toMatchObject({ holder: 7, undecided: true });
    advance(9_999);
    expect(lock.tryTake()).toMatchObject({ holder: 7, undecided: true });
    advance(1);
    const taken = lock.tryTake();
    expect(typeof taken).toBe('function');
    (taken as () => void)();
  });

  it('never breaks a lease its holder renews, however long it is held', () => {
    const dir = tempDir('pets-lock-');
    const { timing, advance } = manualClock();
    plantStale(join(dir, 'a'), 7, 'elsewhere-1');
    const entry = join(dir, 'a.lock', '7.elsewhere-1.dead1');
    const lock = fileLock(join(dir, 'a'), timing);
    expect(lock.tryTake()).toMatchObject({ undecided: true });
    for (let renewal = 1; renewal <= 100; renewal++) {
      advance(9_000);
      utimesSync(entry, renewal, renewal);
      // Seen renewed: alive, and known to be.
      expect(lock.tryTake()).toMatchObject({ holder: 7, elsewhere: true, undecided: false });
    }
    // A fresh reader knows nothing yet: it watches from its first look.
    const fresh = fileLock(join(dir, 'a'), timing);
    expect(fresh.tryTake()).toMatchObject({ undecided: true });
    advance(10_000);
    expect(typeof fresh.tryTake()).toBe('function');
  });

  it("renews its own lease, and a holder whose lease lapsed never releases the next owner's lock", () => {
    const dir = tempDir('pets-lock-');
    const file = join(dir, 'a');
    const own = manualClock();
    const release = fileLock(file, own.timing).tryTake() as () => void;
    const [entry] = readdirSync(`${file}.lock`);
    const stamp = () => statSync(join(`${file}.lock`, entry!)).mtimeMs;
    const first = stamp();
    own.advance(1_000);
    renewLeases();
    expect(stamp()).not.toBe(first);
    // Stopped (a frozen container): its lease lapses and another owner takes the lock.
    rmdirSync(join(`${file}.lock`, entry!));
    const next = fileLock(file).tryTake();
    expect(typeof next).toBe('function');
    release();
    expect(fileLock(file).tryTake()).toMatchObject({ holder: process.pid });
    (next as () => void)();
  });

  it('waits a bounded time, then says who holds it', async () => {
    const file = join(tempDir('pets-lock-'), 'data');
    const release = fileLock(file).tryTake() as () => void;
    expect(() => fileLock(file).takeSync(30)).toThrow(LockTimeout);
    await expect(fileLock(file).take(30)).rejects.toThrow(`held by process ${process.pid}`);
    release();
    fileLock(file).takeSync(30)();
  });
});

const src = fileURLToPath(new URL('../../src/core/', import.meta.url));

/** The lock module as one file that plain node processes can load. */
async function bundle(dir: string): Promise<string> {
  const outfile = join(dir, 'lock.mjs');
  await build({
    entryPoints: [join(src, 'file-lock.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    logLevel: 'silent',
  });
  return pathToFileURL(outfile).href;
}

/** Runs `script` in `count` node processes at once; their outputs, in order. */
async function inProcesses(count: number, script: string, args: string[]): Promise<string[]> {
  return Promise.all(
    Array.from(
      { length: count },
      (_, worker) =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            ['--input-type=module', '-e', script, String(worker), ...args],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          let out = '';
          child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
          child.on('error', reject);
          child.on('exit', (code) =>
            code === 0 ? resolve(out) : reject(new Error(`worker exited ${code}`)),
          );
        }),
    ),
  );
}

describe('fileLock across processes', () => {
  it(`of two processes racing for a stale lock, exactly one wins (${RACE_TRIALS} trials)`, async () => {
    const dir = tempDir('pets-lock-race-');
    const module = await bundle(dir);
    const dead = deadPid();
    for (let trial = 0; trial < RACE_TRIALS; trial++) plantStale(join(dir, `t${trial}`), dead);
    // Both processes meet at a barrier of files before each trial, then take at once; a winner
    // holds its lock to the end, as a run does.
    const script = `
      import { existsSync, writeFileSync } from 'node:fs';
      import { join } from 'node:path';
      const { fileLock } = await import(${JSON.stringify(module)});
      const [worker, dir, trials] = process.argv.slice(1);
      const won = [];
      for (let t = 0; t < Number(trials); t++) {
        writeFileSync(join(dir, 'ready.' + t + '.' + worker), '');
        const other = join(dir, 'ready.' + t + '.' + (1 - Number(worker)));
        while (!existsSync(other));
        if (typeof fileLock(join(dir, 't' + t)).tryTake() === 'function') won.push(t);
      }
      process.stdout.write(JSON.stringify(won));
    `;
    const [a, b] = (await inProcesses(2, script, [dir, String(RACE_TRIALS)])).map(
      (out) => JSON.parse(out) as number[],
    );
    const winners = Array.from(
      { length: RACE_TRIALS },
      (_, t) => Number(a!.includes(t)) + Number(b!.includes(t)),
    );
    console.log(
      `stale lock races: ${RACE_TRIALS} trials, first process won ${a!.length}, second ${b!.length}`,
    );
    expect(winners.filter((count) => count !== 1)).toEqual([]);
  });

  it('leaves nothing once its process exits; a process killed holding it is broken and swept', async () => {
    const dir = tempDir('pets-lock-exit-');
    const module = await bundle(tempDir('pets-lock-bundle-'));
    const file = join(dir, 'data');
    const script = `
      const { fileLock } = await import(${JSON.stringify(module)});
      const [, file, how] = process.argv.slice(1);
      const release = fileLock(file).takeSync(1000);
      if (how === 'release') release();
      process.stdout.write('taken');
      if (how === 'hold') setInterval(() => {}, 1000);
    `;
    await inProcesses(1, script, [file, 'release']);
    expect(readdirSync(dir)).toEqual([]);

    const held = spawn(process.execPath, ['--input-type=module', '-e', script, '0', file, 'hold'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve) => held.stdout.once('data', resolve));
    expect(fileLock(file).tryTake()).toMatchObject({ holder: held.pid });
    held.kill('SIGKILL');
    await new Promise((resolve) => held.once('exit', resolve));
    const release = fileLock(file).tryTake();
    expect(typeof release).toBe('function');
    (release as () => void)();
    // What the killed process left is gone; this process's own folder stays until it exits.
    expect(readdirSync(dir).filter((name) => !name.includes(`.${process.pid}.`))).toEqual([]);
  });

  it('lets four processes change one file under it without losing a change', async () => {
    const dir = tempDir('pets-lock-count-');
    const module = await bundle(dir);
    const counter = join(dir, 'counter');
    writeFileSync(counter, '0');
    const script = `
      import { readFileSync, writeFileSync } from 'node:fs';
      const { fileLock } = await import(${JSON.stringify(module)});
      const [, counter] = process.argv.slice(1);
      const lock = fileLock(counter);
      for (let i = 0; i < 150; i++) {
        const release = lock.takeSync(10_000);
        writeFileSync(counter, String(Number(readFileSync(counter, 'utf8')) + 1));
        release();
      }
    `;
    await inProcesses(4, script, [counter]);
    expect(readFileSync(counter, 'utf8')).toBe('600');
  });
});

describe.skipIf(unshareRefused)('fileLock across PID namespaces (unshare -pf --mount-proc)', () => {
  const NAMESPACE_TRIALS = Number(process.env.PETS_LOCK_NAMESPACE_TRIALS ?? trials(5, 1));

  it(`a holder in another namespace is never broken while it lives, and is once it is killed (${NAMESPACE_TRIALS} trials)`, async () => {
    const module = await bundle(tempDir('pets-lock-bundle-'));
    const timing = { monotonicMs: () => performance.now(), renewMs: 50, leaseMs: 600 };
    const script = `
      const { fileLock } = await import(${JSON.stringify(module)});
      const [, file] = process.argv.slice(1);
      const timing = { monotonicMs: () => performance.now(), renewMs: 50, leaseMs: 600 };
      fileLock(file, timing).takeSync(5_000);
      process.stdout.write(String(process.pid));
      setInterval(() => {}, 1000);
    `;
    let refusedWhileAlive = 0;
    for (let trial = 0; trial < NAMESPACE_TRIALS; trial++) {
      const file = join(tempDir('pets-lock-ns-'), 'data');
      const held = spawn(
        UNSHARE[0]!,
        [...UNSHARE.slice(1), process.execPath, '--input-type=module', '-e', script, '0', file],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const innerPid = await new Promise<string>((resolve) =>
        held.stdout.setEncoding('utf8').once('data', resolve),
      );
      try {
        // Its pid (1 in its namespace) names another process here: kill(pid, 0) cannot tell.
        const lock = fileLock(file, timing);
        for (let look = 0; look < 4; look++) {
          const busy = lock.takeUnlessLive();
          expect(busy, `trial ${trial}`).toMatchObject({
            holder: Number(innerPid),
            elsewhere: true,
          });
          refusedWhileAlive++;
        }
      } finally {
        held.kill('SIGKILL');
        await new Promise((resolve) => held.once('exit', resolve));
      }
      const lock = fileLock(file, timing);
      const started = performance.now();
      const taken = lock.takeUnlessLive();
      expect(typeof taken, `trial ${trial}`).toBe('function');
      // Broken only after a whole lease unchanged, on this process's clock.
      expect(performance.now() - started).toBeGreaterThanOrEqual(timing.leaseMs - 100);
      (taken as () => void)();
    }
    console.log(
      `PID namespace locks: ${NAMESPACE_TRIALS} trials, ${refusedWhileAlive} looks at a live holder, 0 broken; each broken once killed`,
    );
  }, 60_000);

  it('a reader in another namespace never breaks the lock of a live holder here', async () => {
    const module = await bundle(tempDir('pets-lock-bundle-'));
    const file = join(tempDir('pets-lock-ns-'), 'data');
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { fileLock } = await import(${JSON.stringify(module)});
         fileLock(process.argv[1], { monotonicMs: () => performance.now(), renewMs: 50, leaseMs: 600 }).takeSync(5_000);
         process.stdout.write('taken');
         setInterval(() => {}, 1000);`,
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((resolve) => holder.stdout.once('data', resolve));
      const reader = spawnSync(
        UNSHARE[0]!,
        [
          ...UNSHARE.slice(1),
          process.execPath,
          '--input-type=module',
          '-e',
          `const { fileLock } = await import(${JSON.stringify(module)});
           const lock = fileLock(process.argv[1], { monotonicMs: () => performance.now(), renewMs: 50, leaseMs: 600 });
           const looks = [];
           for (let i = 0; i < 5; i++) { const t = lock.takeUnlessLive(); looks.push(typeof t === 'function' ? 'taken' : t); }
           process.stdout.write(JSON.stringify(looks));`,
          file,
        ],
        { encoding: 'utf8' },
      );
      const looks = JSON.parse(reader.stdout) as unknown[];
      expect(looks).toHaveLength(5);
      for (const look of looks) expect(look).toMatchObject({ holder: holder.pid, elsewhere: true });
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
