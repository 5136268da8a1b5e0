import { readFileSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { ANOTHER_CLIENT } from '../../src/ratelimit/gate.js';
import { redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { BIN, runBinary, startBinary } from '../helpers/run-binary.js';
import { tempDir } from '../helpers/config-dir.js';
import { strictServer, type StrictServer } from '../helpers/strict-server.js';
import { trials, cases } from '../helpers/trials.js';

// Machines sharing one key through a rate store: each a separate pets process with its own
// config and state folders, one real redis-server between them, one strict server that bans
// a key sending into a block. Counted from the server's own records.

async function redis(options: { password?: string; args?: string[] } = {}): Promise<RedisServer> {
  const server = await startRedis(options);
  onTestFinished(() => server.close());
  return server;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A machine: its own config folder (and state in it), and a file of `count` records. */
function machine(server: StrictServer, store: string, name: string, count: number) {
  const env = apiEnv(server, { PETS_RATE_STORE: store, PETS_PROFILE: 'staging' });
  const input = join(env.PETS_CONFIG_DIR!, '..', `${name}.ndjson`);
  const names = Array.from({ length: count }, (_, i) => `${name} ${i}`);
  writeFileSync(input, names.map((pet) => JSON.stringify({ name: pet, categoryId: 1 })).join('\n'));
  return { env, input, names };
}

describe.skipIf(redisMissing)('the Redis client', () => {
  it('loads from its own file, and only when a store is configured', async () => {
    const server = await strictServer({ limit: 100, windowMs: 10_000 });
    const store = await redis();
    const dir = tempDir('pets-redis-load-');
    const preload = join(dir, 'loaded.cjs');
    // Writes the files the run required, as it exits.
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_TO, Object.keys(require.cache).join('\\n')));`,
    );
    const loaded = async (extra: Record<string, string>) => {
      const to = join(dir, `${Object.keys(extra).length}.txt`);
      await promisify(execFile)(process.execPath, ['--require', preload, BIN, 'list', '--json'], {
        env: { PATH: process.env.PATH, LOADED_TO: to, ...apiEnv(server), ...extra },
      });
      return readFileSync(to, 'utf8')
        .split('\n')
        .filter((file) => /\/dist\/vendor\/[^/]*redis/.test(file));
    };
    expect(await loaded({})).toEqual([]);
    expect(await loaded({ PETS_RATE_STORE: store.url() })).toEqual([
      expect.stringMatching(/\/dist\/vendor\/ioredis\.js$/),
    ]);
  });
});

describe.skipIf(redisMissing)('a rate store that fails as a command starts', () => {
  it('cannot be reached: exit 6, nothing sent, the store named without its password', async () => {
    const server = await strictServer({ limit: 10, windowMs: 10_000 });
    const store = await redis();
    const url = store.url('hunter2-secret-pw');
    await store.kill();
    const run = await runBinary(['list'], apiEnv(server, { PETS_RATE_STORE: url }));
    expect(run.code).toBe(6);
    expect(server.requests).toHaveLength(0);
    expect(run.stderr).toContain(`cannot reach the rate store redis://127.0.0.1:${store.port}`);
    expect(run.stderr).toMatch(/ECONNREFUSED/);
    expect(run.stdout + run.stderr).not.toContain('hunter2');
  });

  it('refuses the password: exit 6, nothing sent, the password never shown', async () => {
    const server = await strictServer({ limit: 10, windowMs: 10_000 });
    const store = await redis({ password: 'right-password-1234' });
    const env = apiEnv(server, { PETS_RATE_STORE: store.url('wrong-password-5678') });
    for (const args of [['list'], ['list', '--json'], ['list', '--debug']]) {
      const run = await runBinary(args, env);
      expect(run.code).toBe(6);
      expect(run.stderr).toContain(`the rate store redis://127.0.0.1:${store.port} refused pets`);
      expect(run.stdout + run.stderr).not.toContain('wrong-password');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('has no such database: exit 6, nothing sent, nothing written in database 0', async () => {
    const server = await strictServer({ limit: 10, windowMs: 10_000 });
    const store = await redis();
    const url = `${store.url()}/99`;
    for (const args of [['list'], ['quota']]) {
      const run = await runBinary(args, apiEnv(server, { PETS_RATE_STORE: url }));
      expect(run.code).toBe(6);
      expect(run.stderr).toContain(`the rate store ${url} has no database 99; nothing was sent`);
    }
    expect(server.requests).toHaveLength(0);
    // The same store at /0 holds nothing of pets's: the runs above did not fall back to it.
    const run = await runBinary(
      ['quota', '--json'],
      apiEnv(server, { PETS_RATE_STORE: store.url() }),
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ store: store.url(), source: 'server' });
  });
});

describe.skipIf(redisMissing)('what the Redis client would say itself', () => {
  /** Lines of stderr that are not one JSON object each (--json's errors and notices are). */
  const notJson = (stderr: string) =>
    stderr.split('\n').filter((line) => line !== '' && !/^\{.*\}$/.test(line));

  it('prints nothing with DEBUG set: not the AUTH with its password, not a raw line under --json', async () => {
    const server = await strictServer({ limit: 50, windowMs: 10_000 });
    const store = await redis({ password: 'debug-secret-pw-42' });
    for (const debug of ['ioredis:*', '*']) {
      const env = apiEnv(server, {
        PETS_RATE_STORE: store.url('debug-secret-pw-42'),
        DEBUG: debug,
      });
      for (const args of [['list'], ['list', '--json'], ['list', '--debug']]) {
        const run = await runBinary(args, env);
        expect(run.code).toBe(0);
        expect(run.stdout + run.stderr).not.toContain('debug-secret-pw');
        expect(run.stderr).not.toMatch(/ioredis|hello|write command/i);
        if (args.includes('--json')) expect(notJson(run.stderr)).toEqual([]);
      }
    }
    expect(server.requests).toHaveLength(6);
  });

  it('prints none of its warnings: a password the store does not need, a user without INFO', async () => {
    const server = await strictServer({ limit: 50, windowMs: 10_000 });
    // A Redis without HELLO (as Redis 5) and without a password, given one: the client falls
    // back to AUTH, which says no password is set.
    const old = await redis({ args: ['--rename-command', 'HELLO', ''] });
    // An ACL user that may not run INFO, which the client's ready check would.
    const acl = await redis({
      args: ['--user', 'noinfo', 'on', '>noinfo-pass-123', '~*', '+@all', '-info'],
    });
    const port = acl.port;
    for (const url of [
      old.url('unneeded-pass-9'),
      `redis://noinfo:noinfo-pass-123@127.0.0.1:${port}`,
    ]) {
      const run = await runBinary(['list', '--json'], apiEnv(server, { PETS_RATE_STORE: url }));
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
    }
    expect(server.requests).toHaveLength(2);
  });
});

describe.skipIf(redisMissing)('a store that echoes a short password', () => {
  // A store without AUTH (renamed away) answers pets's AUTH with "ERR unknown command 'auth',
  // with args beginning with: '<password>'". A password under 8 characters is redacted in
  // general output only inside URLs; the store's words have it taken out whatever its length.
  for (const password of cases(['ab', 'short7x'], ['ab'])) {
    it(`takes out "${password}" from every output: text, --json, --debug`, async () => {
      const server = await strictServer({ limit: 10, windowMs: 10_000 });
      const args = ['--rename-command', 'AUTH', '', '--rename-command', 'HELLO', ''];
      const store = await redis({ password, args });
      const env = apiEnv(server, { PETS_RATE_STORE: store.url(password) });
      for (const run of [['list'], ['list', '--json'], ['list', '--debug'], ['quota', '--json']]) {
        const { code, stdout, stderr } = await runBinary(run, env);
        expect(code).toBe(6);
        expect(stdout + stderr).toContain(`with args beginning with: '***'`);
        expect(stdout + stderr).toContain(`the rate store redis://127.0.0.1:${store.port} refused`);
        expect((stdout + stderr).split(password)).toHaveLength(1);
      }
      expect(server.requests).toHaveLength(0);
    });
  }
});

describe.skipIf(redisMissing)('machines on one key, sharing a rate store', () => {
  // Four windows of 10 s, as the server had (30 per 10 s), so that the quota, not the
  // CPU, sets the time. What the work takes past its least time is the sending of the last
  // window's budget, each request through the store and the journal: 0.3 to 0.7 s for ten
  // processes on two idle cores, up to 3 s with other test files running (loads of 13 to 21).
  // Against 2 s windows that was up to 1.85× the least time; against 30 s, within 1.1×. The
  // server holds every request until every machine has started and connected to the store,
  // then takes them from the start of a window, so that the least time is whole windows from
  // the first request, whatever it took to start the processes.
  const fleets: ReadonlyArray<readonly [number, number, number]> = [
    [3, 60, 45],
    [10, 60, 150],
  ];
  for (const [machines, each, limit] of cases(fleets, [[2, 20, 30]])) {
    it(`${machines} machines importing ${each} records each: no 429, no ban, each record once, within 1.1× of the quota's least time`, async () => {
      const windowMs = 10_000;
      const server = await strictServer({ limit, windowMs, held: true });
      const store = await redis();
      const fleet = Array.from({ length: machines }, (_, i) =>
        machine(server, store.url(), `M${i}`, each),
      );
      const started = fleet.map(({ env, input }) => {
        const run = startBinary(
          ['add', '--file', '-', '--journal', `${input}.journal`, '--max-wait', '60'],
          env,
        );
        run.write(readFileSync(input, 'utf8'));
        return run;
      });
      while ((await store.clients()) < machines) {
        if (await Promise.race([Promise.any(started.map((run) => run.done)), sleep(20)])) break;
      }
      const skewMs = server.open(Date.now() + 100);
      const runs = await Promise.all(started.map((run) => run.done));
      for (const run of runs) expect(run.stderr).toMatch(new RegExp(`created ${each}, failed 0`));
      expect(runs.map((run) => run.code)).toEqual(Array(machines).fill(0));
      expect(server.limited()).toBe(0);
      expect(server.sentWhileBlocked()).toBe(0);
      expect([...server.created].sort()).toEqual(fleet.flatMap((m) => m.names).sort());
      // The quota's least time for all the records from the first request: the start of the
      // window the last of them needs, every window before it used whole.
      // A request held until the window opened may be stamped a moment before its start.
      const first = server.requests[0]!.at;
      const into = (first + skewMs) % windowMs;
      const sinceStart = into > windowMs - 100 ? into - windowMs : into;
      const windows = Math.ceil((machines * each) / limit);
      const leastMs = (windows - 1) * windowMs - sinceStart;
      const tookMs = server.requests.at(-1)!.at - first;
      console.log(
        `${machines} machines × ${each} records, ${limit} per ${windowMs / 1000} s: ${tookMs} ms, the least time ${leastMs} ms (${(tookMs / leastMs).toFixed(3)}×) at a load of ${loadavg()[0]!.toFixed(1)}`,
      );
      // Never faster than the quota allows (the clock of the count above), and within 1.1×
      // of it, as the issue asks, on a loaded machine too (CI runs test files side by side).
      expect(tookMs).toBeGreaterThanOrEqual(leastMs);
      expect(tookMs).toBeLessThanOrEqual(1.1 * leastMs);
    }, 60_000);
  }
});

describe.skipIf(redisMissing)('a rate store lost mid-batch', () => {
  // Two machines on one key, one store; the store is killed (SIGKILL) while both import. Each
  // settles what it has in flight and stops (exit 6), sending nothing after it stopped and
  // never going on alone; once the store is started again, the same commands finish the
  // records, each created once.
  it('stops every machine (exit 6) with no 429 and nothing sent after, and the resume creates the rest once', async () => {
    const server = await strictServer({ limit: 200, windowMs: 2_000, latencyMs: 50 });
    const store = await redis({ password: 'pw' });
    const fleet = ['A', 'B'].map((name) => machine(server, store.url('pw'), name, 40));
    const args = (input: string) => ['add', '--file', input, '--max-wait', '60'];
    const started = fleet.map(({ env, input }) => startBinary(args(input), env));
    // Both have sent: both hold the store when it goes.
    const sentBy = (name: string) => server.created.filter((pet) => pet.startsWith(name)).length;
    while (sentBy('A ') < 3 || sentBy('B ') < 3) await sleep(5);
    await store.kill();
    const killedAt = Date.now();
    const createdAtKill = server.created.length;
    const runs = await Promise.all(started.map((run) => run.done));
    const endedAt = Date.now();
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(6);
      expect(run.stderr).toContain(`lost the rate store redis://127.0.0.1:${store.port}`);
      expect(run.stderr).toContain('nothing more is sent');
      expect(run.stdout + run.stderr).not.toMatch(/:pw@/);
    }
    // What was under way as the store went: each machine's requests in flight and the claims
    // it took ahead, at most a window's budget; nothing at all once the machines had ended.
    expect(server.created.length - createdAtKill).toBeLessThanOrEqual(20);
    expect(server.requests.filter((request) => request.at > endedAt)).toEqual([]);
    expect(server.limited()).toBe(0);
    expect(server.sentWhileBlocked()).toBe(0);
    console.log(
      `store lost after ${createdAtKill} created; ${server.created.length - createdAtKill} more arrived in the ${endedAt - killedAt} ms until both had stopped`,
    );

    await store.restart();
    const resumed = await Promise.all(fleet.map(({ env, input }) => runBinary(args(input), env)));
    expect(resumed.map((run) => run.code)).toEqual([0, 0]);
    expect(server.limited()).toBe(0);
    expect(server.sentWhileBlocked()).toBe(0);
    expect([...server.created].sort()).toEqual(fleet.flatMap((m) => m.names).sort());
  }, 30_000);
});

describe.skipIf(redisMissing)('a rate store that forgets the key mid-batch', () => {
  // Three machines on one key; the store's key is wiped (FLUSHALL) while the connection stays
  // up, as an admin's flush or a cache's eviction does. Going on from an empty state would send
  // into a window the machines had used up (issue 35: 1-5 × 429 a trial): each stops (exit 6)
  // instead, saying what the store forgot, and the resume creates the rest once.
  it('stops every machine (exit 6) with no 429, and the resume creates the rest once', async () => {
    // Held until all three hold the store, so that none is done before the flush on a loaded
    // machine. Each has more than a third of a window's budget, so each writes the store after
    // the flush; npm test keeps the resume to two windows, the trials to five.
    const server = await strictServer({ limit: 20, windowMs: 2_000, latencyMs: 20, held: true });
    const store = await redis();
    const each = trials(40, 16);
    const fleet = ['A', 'B', 'C'].map((name) => machine(server, store.url(), name, each));
    const args = (input: string) => ['add', '--file', input, '--max-wait', '60'];
    const started = fleet.map(({ env, input }) => startBinary(args(input), env));
    while ((await store.clients()) < fleet.length) {
      if (await Promise.race([Promise.any(started.map((run) => run.done)), sleep(20)])) break;
    }
    server.open(Date.now() + 50);
    const sentBy = (name: string) => server.created.filter((pet) => pet.startsWith(name)).length;
    while (['A ', 'B ', 'C '].some((name) => sentBy(name) < 2)) await sleep(5);
    expect(await store.command('FLUSHALL')).toBe('+OK');
    const createdAtFlush = server.created.length;
    const runs = await Promise.all(started.map((run) => run.done));
    const endedAt = Date.now();
    console.log(
      `flushed after ${createdAtFlush} created; exits ${runs.map((run) => run.code).join('/')}, ${server.created.length} created, ${server.limited()} × 429 by the stop`,
    );
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(6);
      expect(run.stderr).toContain(`lost the rate store redis://127.0.0.1:${store.port}`);
      expect(run.stderr).toContain("no longer holds this key's state");
      expect(run.stderr).toContain('maxmemory-policy noeviction');
    }
    expect(server.requests.filter((request) => request.at > endedAt)).toEqual([]);
    expect(server.limited()).toBe(0);
    expect(server.sentWhileBlocked()).toBe(0);

    // The resume starts from no state at all, in a window the stopped run used: it may meet
    // one 429 learning that (never a send into the block it announces).
    const resumed = await Promise.all(fleet.map(({ env, input }) => runBinary(args(input), env)));
    console.log(
      `the resume: exits ${resumed.map((run) => run.code).join('/')}, ${server.limited()} × 429 in all`,
    );
    expect(resumed.map((run) => run.code)).toEqual([0, 0, 0]);
    expect(server.limited()).toBeLessThanOrEqual(1);
    expect(server.sentWhileBlocked()).toBe(0);
    expect([...server.created].sort()).toEqual(fleet.flatMap((m) => m.names).sort());
  }, 30_000);
});

describe('machines on one key with no store', () => {
  // Two machines (separate config and state folders), no PETS_RATE_STORE: each learns of the
  // other only from the server's answers, and says so once.
  it('each notices another client from the answers, says so once, and names PETS_RATE_STORE', async () => {
    const server = await strictServer({ limit: 20, windowMs: 2_000, latencyMs: 20 });
    const fleet = ['A', 'B'].map((name) => {
      const env = apiEnv(server, { PETS_PROFILE: 'staging' });
      // 30 each, three windows of 20 together: neither can finish before the other starts.
      // With 15 each (be5800f), the executable's slower start let one finish first, and neither
      // had anything to notice (notices 0, 0 in a CI run).
      return { env, input: recordsFile(env, name, 30) };
    });
    const runs = await Promise.all(
      fleet.map(({ env, input }) =>
        runBinary(['add', '--file', input, '--max-wait', '60', '--debug'], env),
      ),
    );
    const said = runs.map((run) => run.stderr.split(ANOTHER_CLIENT).length - 1);
    console.log(
      `two machines, no store: notices ${said.join(', ')}; ${server.limited()} × 429, ${server.sentWhileBlocked()} sends into a block; exits ${runs.map((run) => run.code).join(', ')}`,
    );
    expect(Math.max(...said)).toBe(1);
    expect(said.every((count) => count <= 1)).toBe(true);
    // From then on, one request at a time: the trace says so.
    const noticed = runs.find((run) => run.stderr.includes(ANOTHER_CLIENT))!;
    expect(noticed.stderr).toMatch(/another client uses this key: one request at a time for/);
  });
});

describe.skipIf(redisMissing)('pets quota with a rate store', () => {
  it('names the store without its password, the key in it, and what it holds', async () => {
    const server = await strictServer({ limit: 50, windowMs: 60_000 });
    const store = await redis({ password: 'short' });
    const env = apiEnv(server, { PETS_RATE_STORE: store.url('short') });
    expect((await runBinary(['list'], env)).code).toBe(0);
    const json = JSON.parse((await runBinary(['quota', '--json'], env)).stdout);
    expect(json).toMatchObject({
      limit: 50,
      remaining: 49,
      source: 'cached',
      store: `redis://127.0.0.1:${store.port}`,
      storeKey: expect.stringMatching(/^pets:ratelimit:[0-9a-f]{16}$/),
      taken: 0,
    });
    const shown = await runBinary(['quota'], env);
    expect(shown.stdout).toContain(
      `redis://127.0.0.1:${store.port}, shared by machines (key pets:ratelimit:`,
    );
    expect(shown.stdout + shown.stderr).not.toMatch(/:short@/);
    // Without one: files on this machine, and which.
    const { PETS_RATE_STORE: _, ...alone } = env;
    const files = JSON.parse((await runBinary(['quota', '--json'], alone)).stdout);
    expect(files).toMatchObject({
      store: null,
      storeKey: expect.stringMatching(/ratelimit-[0-9a-f]{16}\.json$/),
    });
  });
});

describe.skipIf(redisMissing)('machines and the store killed mid-batch, then resumed', () => {
  // Three machines import through one store. In each trial one machine is killed (SIGKILL)
  // mid-batch, and in every other trial the store too; then the store is started again and
  // every machine runs its command again. Nothing may be created twice: a create the killed
  // machine may have sent is never resent (it is reported unknown instead).
  const TRIALS = trials(4);
  it(`${TRIALS} trials: 0 duplicates, 0 × 429, 0 bans`, async () => {
    const figures: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const server = await strictServer({ limit: 30, windowMs: 2_000, latencyMs: 20 });
      const store = await redis();
      const fleet = ['A', 'B', 'C'].map((name) =>
        machine(server, store.url(), `${name}${trial}`, trials(30, 20)),
      );
      const args = (input: string) => ['add', '--file', input, '--max-wait', '60'];
      const started = fleet.map(({ env, input }) => startBinary(args(input), env));
      while (server.created.length < 15) await sleep(5);
      process.kill(started[0]!.pid!, 'SIGKILL');
      const storeKilled = trial % 2 === 1;
      if (storeKilled) await store.kill();
      const first = await Promise.all(started.map((run) => run.done));
      if (storeKilled) await store.restart();
      const resumed = await Promise.all(
        fleet.map(({ env, input }) => runBinary([...args(input), '--yes'], env)),
      );
      const names = fleet.flatMap((m) => m.names);
      const twice = server.created.filter((name, i) => server.created.indexOf(name) !== i);
      const missing = names.filter((name) => !server.created.includes(name));
      figures.push(
        `trial ${trial + 1} (${storeKilled ? 'a machine and the store' : 'a machine'} killed): exits ${first.map((r) => r.code).join('/')} then ${resumed.map((r) => r.code).join('/')}; ${server.created.length} created of ${names.length}, ${twice.length} twice, ${missing.length} not created (unknown)`,
      );
      expect(twice).toEqual([]);
      expect(server.limited()).toBe(0);
      expect(server.sentWhileBlocked()).toBe(0);
      // What is missing is what the killed machine may have sent unanswered: reported unknown.
      expect(missing.every((name) => name.startsWith(`A${trial} `))).toBe(true);
      expect(missing.length).toBeLessThanOrEqual(
        Number(/unknown (\d+)/.exec(resumed[0]!.stderr)?.[1] ?? 0),
      );
      for (const run of resumed.slice(1)) expect(run.code).toBe(0);
    }
    console.log(figures.join('\n'));
  }, 120_000);
});
