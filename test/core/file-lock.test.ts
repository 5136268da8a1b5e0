import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fileLock, LockTimeout } from '../../src/core/file-lock.js';
import { tempDir } from '../helpers/config-dir.js';

// The one lock of pets (journal, config, rate state), tested once: here, with real processes.

const RACE_TRIALS = Number(process.env.PETS_LOCK_RACE_TRIALS ?? 100);

/** A pid that no process has: one that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

/** Leaves `file`'s lock as a process that died holding it leaves it. */
function plantStale(file: string, pid = deadPid()): void {
  mkdirSync(join(`${file}.lock`, `${pid}.dead1`), { recursive: true });
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

  it('breaks a lock whose owner has died, and an older pets lock file of a dead pid', () => {
    const dir = tempDir('pets-lock-');
    plantStale(join(dir, 'a'));
    const a = fileLock(join(dir, 'a')).tryTake();
    expect(typeof a).toBe('function');
    writeFileSync(join(dir, 'b.lock'), `${deadPid()}\n`);
    const b = fileLock(join(dir, 'b')).tryTake();
    expect(typeof b).toBe('function');
    // An older pets lock file of a live process holds.
    writeFileSync(join(dir, 'c.lock'), `${process.ppid}\n`);
    expect(fileLock(join(dir, 'c')).tryTake()).toMatchObject({ holder: process.ppid });
  });

  it('never breaks a lock whose owner runs, nor one it cannot read', () => {
    const dir = tempDir('pets-lock-');
    plantStale(join(dir, 'a'), process.ppid);
    expect(fileLock(join(dir, 'a')).tryTake()).toMatchObject({ holder: process.ppid });
    mkdirSync(join(dir, 'b.lock', 'not-an-owner'), { recursive: true });
    expect(fileLock(join(dir, 'b')).tryTake()).toEqual({ lockPath: join(dir, 'b.lock') });
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
