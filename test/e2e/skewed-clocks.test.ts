import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { runBinary } from '../helpers/run-binary.js';
import {
  skewEndingWindowIn,
  startStrictServer,
  type StrictServer,
} from '../helpers/strict-server.js';
import { trials } from '../helpers/trials.js';

// Two pets processes on one key whose clocks disagree by 50 s (libfaketime, as a container or
// a machine with a wrong clock would), or one whose clock is stepped by 50 s mid-run, against
// a strict server that bans a key for any request sent while it is blocked. The shared state
// holds the server's time, and each process converts it with its own measurement, so neither
// sends into a block the other learnt.

/** libfaketime, where Debian puts it; .ci/run installs the faketime package where missing. */
const FAKETIME_LIB = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
].find((path) => existsSync(path));
if (!FAKETIME_LIB) {
  console.warn('skipped: the skewed-clock tests need libfaketime (apt-get install faketime)');
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The environment that runs pets on a clock `spec` off this one (faketime's syntax). */
function skewed(spec: string): Record<string, string> {
  return { LD_PRELOAD: FAKETIME_LIB!, FAKETIME: spec, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
}

/** A clock that reads true until `step()`, then `offset` off, as when NTP or a person sets it. */
function steppable(offset: string): { env: Record<string, string>; step(): void } {
  const file = join(tempDir('pets-faketime-'), 'offset');
  writeFileSync(file, '+0s\n');
  return {
    env: {
      LD_PRELOAD: FAKETIME_LIB!,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: '1',
      // The monotonic clock goes on at its pace, as the kernel's does when the wall clock steps.
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    step: () => writeFileSync(file, `${offset}\n`),
  };
}

const TRIALS = trials(2);
// Each run's records past a window of 8 on its own: three windows in all in npm test, five in the trials.
const RECORDS = trials(20, 12);

describe.skipIf(!FAKETIME_LIB)('two pets processes on one key, clocks 50 s apart', () => {
  it.each([
    ['+50s', '+50 s'],
    ['-50s', '-50 s'],
  ])(
    'one of them %s: both batches done, nothing sent into a block, no ban (2 trials)',
    async (spec) => {
      for (let trial = 0; trial < TRIALS; trial++) {
        const server: StrictServer = await startStrictServer({ limit: 8, windowMs: 1_000 });
        closers.push(() => server.close());
        const env = apiEnv(server, { PETS_PROFILE: 'staging' });
        const [plain, off] = await Promise.all([
          runBinary(['add', '--file', recordsFile(env, `p${trial}`, RECORDS), '-q'], env),
          runBinary(['add', '--file', recordsFile(env, `s${trial}`, RECORDS), '-q'], {
            ...env,
            ...skewed(spec),
          }),
        ]);
        const context = `trial ${trial}: ${plain.stderr} / ${off.stderr}`;
        expect(server.sentWhileBlocked(), context).toBe(0);
        expect(server.created, context).toHaveLength(2 * RECORDS);
        expect([plain.code, off.code], context).toEqual([0, 0]);
      }
    },
    120_000,
  );

  it('one of them stepped 50 s ahead mid-run: nothing sent into a block, no ban (2 trials)', async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const server = await startStrictServer({ limit: 8, windowMs: 1_000 });
      closers.push(() => server.close());
      const env = apiEnv(server, { PETS_PROFILE: 'staging' });
      const clock = steppable('+50s');
      // The step comes once both are under way and have learnt the window.
      const stepped = new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (server.requests.length >= 10) {
            clearInterval(poll);
            clock.step();
            resolve();
          }
        }, 5);
      });
      const [plain, moved] = await Promise.all([
        runBinary(['add', '--file', recordsFile(env, `p${trial}`, RECORDS), '-q'], env),
        runBinary(['add', '--file', recordsFile(env, `m${trial}`, RECORDS), '-q'], {
          ...env,
          ...clock.env,
        }),
        stepped,
      ]);
      const context = `trial ${trial}: ${plain.stderr} / ${moved.stderr}`;
      expect(server.sentWhileBlocked(), context).toBe(0);
      expect(server.created, context).toHaveLength(2 * RECORDS);
      expect([plain.code, moved.code], context).toEqual([0, 0]);
    }
  }, 120_000);

  it('a process whose monotonic clock faketime moved too sends nothing into a window another process saw spent', async () => {
    const windowMs = 60_000;
    const server = await startStrictServer({
      limit: 2,
      windowMs,
      skewMs: skewEndingWindowIn(windowMs, 50_000),
    });
    closers.push(() => server.close());
    const env = apiEnv(server, { PETS_PROFILE: 'staging' });
    const spent = [];
    for (let i = 0; i < 3; i++)
      spent.push((await runBinary(['list', '--max-wait', '0'], env)).code);
    expect(spent).toEqual([0, 0, 5]);
    // Without FAKETIME_DONT_FAKE_MONOTONIC, process.hrtime reads 20 s plus the epoch too: the
    // boot id no longer names the clock the other process's reading was on.
    const faked = { LD_PRELOAD: FAKETIME_LIB!, FAKETIME: '+20s' };
    const run = await runBinary(['list', '--max-wait', '0'], { ...env, ...faked });
    // The third refused at home (Remaining 0): a request now is a 429, no process met one.
    expect(server.limited(), run.stderr).toBe(0);
    expect(run.code, run.stderr).toBe(5);
  }, 60_000);
});
