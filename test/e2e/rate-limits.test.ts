import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { concurrentClock, fakeClock } from '../helpers/fake-clock.js';
import { sendJson, startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { runBinary } from '../helpers/run-binary.js';
import { runMain } from '../helpers/run-main.js';
import { skewEndingWindowIn, strictServer } from '../helpers/strict-server.js';
import { testSandbox } from '../helpers/sandbox.js';

// The rate gate's promises, kept by real pets processes and by the whole CLI on a clock it
// shares with the server: no 429 when pets is alone on a key, nothing sent into a block.

describe('the free plan, 100 creates at the default concurrency', () => {
  it('creates all 100 with no 429: workers that wake check before they send', async () => {
    const clock = concurrentClock();
    const sandbox: RunningSandbox = await startSandbox({ plan: 'free', now: clock.now });
    onTestFinished(() => sandbox.close());
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const input = join(env.PETS_CONFIG_DIR!, '..', 'free.ndjson');
    const names = Array.from({ length: 100 }, (_, i) => `Free ${i}`);
    writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));

    const run = await runMain(['add', '--file', input, '--max-wait', '600'], env, {}, clock);
    expect(run.stderr).toMatch(/created 100, failed 0/);
    expect(run.code).toBe(0);
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    expect(
      sandbox
        .pets()
        .map((pet) => pet.name)
        .sort(),
    ).toEqual([...names].sort());
  });
});

describe('the free plan, 100 creates by the built binary', () => {
  it('creates all 100 with no 429 and no ban, on a free plan whose minute lasts 2 s', async () => {
    // The free plan's 60 per window and its ban, with the window shortened so the run takes
    // seconds: 60 go in the first window, the other 40 wait for the next one.
    const sandbox = await testSandbox({ plan: 'free', windowSeconds: 2, banAfter: 1 });
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const input = join(env.PETS_CONFIG_DIR!, '..', 'free-binary.ndjson');
    const names = Array.from({ length: 100 }, (_, i) => `Binary ${i}`);
    writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));

    const run = await runBinary(['add', '--file', input, '--max-wait', '60'], env);
    expect(run.stderr).toMatch(/created 100, failed 0/);
    expect(run.code).toBe(0);
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    expect(sandbox.requestLog).toHaveLength(100);
    expect(
      sandbox
        .pets()
        .map((pet) => pet.name)
        .sort(),
    ).toEqual([...names].sort());
  }, 30_000);
});

describe('the free plan, `pets get` with 80 ids by the built binary', () => {
  it('gets all 80 with no 429 and no ban, on a free plan whose minute lasts 2 s', async () => {
    const sandbox = await testSandbox({ plan: 'free', windowSeconds: 2, banAfter: 1, seed: 80 });
    const env = apiEnv(sandbox);
    const ids = sandbox.pets().map((pet) => String(pet.id));
    expect(ids).toHaveLength(80);

    const run = await runBinary(['get', ...ids, '--json', '--max-wait', '60'], env);
    expect(run.code).toBe(0);
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    expect(sandbox.requestLog).toHaveLength(80);
  }, 30_000);
});

describe('--max-wait bounds the whole command', () => {
  it('a batch whose waits add up past --max-wait stops with exit 5, though each wait fits', async () => {
    // 10 a minute: 35 records need three waits of about a minute, 180 s in all; --max-wait
    // 90 covers one of them and not two.
    const clock = concurrentClock();
    const sandbox = await testSandbox({ plan: 'free', rpm: 10, now: clock.now });
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const input = join(env.PETS_CONFIG_DIR!, '..', 'max-wait.ndjson');
    const lines = Array.from({ length: 35 }, (_, i) =>
      JSON.stringify({ name: `W ${i}`, categoryId: 1 }),
    );
    writeFileSync(input, lines.join('\n'));
    const started = clock.now();

    const run = await runMain(['add', '--file', input, '--max-wait', '90'], env, {}, clock);
    expect(run.code).toBe(5);
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    // Two windows' worth at most, and at least one: on a loaded machine the injected clock can
    // move while a create waits on its journal's fdatasync, so the second window may be cut
    // short; what is promised is the stop within --max-wait, and counts that are true.
    const created = sandbox.pets().length;
    expect(created).toBeGreaterThanOrEqual(10);
    expect(created).toBeLessThanOrEqual(20);
    expect(run.stderr).toContain(`created ${created}, failed 0`);
    expect(run.stderr).toMatch(
      new RegExp(
        `more than is left of --max-wait \\(90 s\\) after the \\d+ s this command has waited, so pets stopped after sending ${created} requests`,
      ),
    );
    expect(clock.now() - started).toBeLessThanOrEqual(90_000 + 5_000);
  });
});

describe('several pets processes on one key', () => {
  it('8 parallel `pets list` on a 10-per-10 s window: no 429, those over the budget wait', async () => {
    // The server's window ends 1.5 s from now, so the wait is short.
    const server = await strictServer({
      limit: 10,
      windowMs: 10_000,
      skewMs: skewEndingWindowIn(10_000, 2_500),
    });
    const env = apiEnv(server);
    // Warm state: four requests of the window are used.
    for (let i = 0; i < 4; i++) expect((await runBinary(['list', '--json'], env)).code).toBe(0);

    const runs = await Promise.all(
      Array.from({ length: 8 }, () => runBinary(['list', '--json'], env)),
    );
    expect(runs.map((run) => run.code)).toEqual(Array(8).fill(0));
    expect(server.limited()).toBe(0);
    expect(server.sentWhileBlocked()).toBe(0);
    expect(server.requests).toHaveLength(12);
  });

  it('a cooldown learnt through one profile and address holds the same key under another', async () => {
    const clock = fakeClock();
    const fault: FaultServer = await startFaultServer(clock.now);
    onTestFinished(() => fault.close());
    let first = true;
    fault.handle((_req, res) => {
      if (first) {
        first = false;
        sendJson(res, 429, '{"code":"rate_limited","message":"slow","status":429}', {
          'retry-after': '30',
        });
      } else sendJson(res, 200, '[]');
    });
    const dir = tempConfigDir();
    const key = { PETS_CONFIG_DIR: dir, PETS_API_KEY: 'shared_key_0123456789' };
    const localhost = fault.baseUrl.replace('127.0.0.1', 'localhost');
    await runMain(['profile', 'set', 'one', '--base-url', fault.baseUrl], key, {}, clock);
    await runMain(['profile', 'set', 'two', '--base-url', localhost], key, {}, clock);
    const viaIp = { ...key, PETS_PROFILE: 'one' };
    const viaName = { ...key, PETS_PROFILE: 'two' };

    const limited = await runMain(['list', '--max-wait', '0'], viaIp, {}, clock);
    expect(limited.code).toBe(5);
    const other = await runMain(['list', '--max-wait', '0'], viaName, {}, clock);
    expect(other.code).toBe(5);
    expect(other.stderr).toMatch(/nothing was sent/);
    expect(fault.requests).toHaveLength(1);

    const waited = await runMain(['list'], viaName, {}, clock);
    expect(waited.code).toBe(0);
    expect(fault.requests).toHaveLength(2);
    expect(fault.requests[1]!.at - fault.requests[0]!.at).toBeGreaterThanOrEqual(30_000);
  });
});

describe('Retry-After is obeyed as given', () => {
  it.each(['700000', '99999999999999999999'])(
    'Retry-After %s: exit 5 with the time to retry, and nothing sent early',
    async (retryAfter) => {
      const fault = await startFaultServer();
      onTestFinished(() => fault.close());
      fault.handle((_req, res) =>
        sendJson(res, 429, '{"code":"rate_limited","message":"slow","status":429}', {
          'retry-after': retryAfter,
        }),
      );
      const env = {
        PETS_CONFIG_DIR: tempConfigDir(),
        PETS_BASE_URL: fault.baseUrl,
        PETS_API_KEY: 'fault_key_0123456789',
      };
      const run = await runBinary(['list', '--json'], env);
      expect(run.code).toBe(5);
      const error = JSON.parse(run.stderr) as { error: { retryAfter: number; message: string } };
      expect(error.error.retryAfter).toBeGreaterThanOrEqual(699_999);
      expect(error.error.message).toMatch(/after sending 1 request/);
      expect(fault.requests).toHaveLength(1);
      // The next run knows the block and sends nothing.
      const again = await runBinary(['list'], env);
      expect(again.code).toBe(5);
      expect(again.stderr).toMatch(/nothing was sent/);
      expect(fault.requests).toHaveLength(1);
    },
  );

  it('--max-wait 0 with budget left sends at once, and exit 5 says nothing was sent', async () => {
    const server = await strictServer({ limit: 60, windowMs: 60_000 });
    const env = apiEnv(server);
    for (let i = 0; i < 3; i++) {
      expect((await runBinary(['list', '--max-wait', '0'], env)).code).toBe(0);
    }
    expect(server.requests).toHaveLength(3);
  });
});

describe('many requests waiting at once', () => {
  it('wait for a window without a word from Node on stderr', async () => {
    const server = await strictServer({ limit: 5, windowMs: 1_000 });
    const env = apiEnv(server, { PETS_PROFILE: 'staging' });
    const input = join(env.PETS_CONFIG_DIR!, '..', 'wide.ndjson');
    writeFileSync(
      input,
      Array.from({ length: 20 }, (_, i) => JSON.stringify({ name: `W${i}`, categoryId: 1 })).join(
        '\n',
      ),
    );
    const run = await runBinary(['add', '--file', input, '--concurrency', '16', '-q'], env);
    expect(run.stderr).not.toMatch(/Warning/);
    expect(run.code).toBe(0);
    expect(server.created).toHaveLength(20);
    expect(server.limited()).toBe(0);
  });
});

describe('a batch with default options waits as long as its records need', () => {
  it.each([
    ['65 s', 65, 25, 2],
    ['an hour', 3600, 15, 1],
  ])(
    'a window of %s: every record created in one command, with no 429',
    async (_case, windowSeconds, records, waits) => {
      const clock = concurrentClock();
      const sandbox = await testSandbox({ plan: 'free', rpm: 10, windowSeconds, now: clock.now });
      const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
      const started = clock.now();

      const run = await runMain(['add', '--file', recordsFile(env, 'w', records)], env, {}, clock);
      expect(run.stderr).toMatch(new RegExp(`created ${records}, failed 0`));
      expect(run.code).toBe(0);
      expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
      expect(sandbox.pets()).toHaveLength(records);
      // It waited for the windows it needed, each a second longer for Reset's whole seconds.
      // (On this clock, a request in flight while another
      // worker's wait ends arrives after it, so one more window may open; a real clock does
      // not do that.)
      expect(clock.now() - started).toBeGreaterThanOrEqual(waits * windowSeconds * 1000 - 1_000);
      expect(clock.now() - started).toBeLessThanOrEqual((waits + 1) * windowSeconds * 1000 + 2_000);
    },
  );

  it('a short command keeps 60 s: `pets list` on a used-up window of 65 s stops with exit 5', async () => {
    const clock = concurrentClock();
    const sandbox = await testSandbox({ plan: 'free', rpm: 1, windowSeconds: 65, now: clock.now });
    const env = apiEnv(sandbox);
    expect((await runMain(['list'], env, {}, clock)).code).toBe(0);
    const run = await runMain(['list'], env, {}, clock);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      /\(1 request\) is used up; the next request may go at \d\d:\d\d:\d\d, in 65 s, beyond --max-wait \(60 s\), so nothing was sent/,
    );
    expect(sandbox.requestLog).toHaveLength(1);
  });

  it("the sandbox's daily quota used up mid-batch: it stops at once, saying the day to resume", async () => {
    const clock = concurrentClock();
    const sandbox = await testSandbox({ plan: 'free', rpd: 20, now: clock.now });
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const started = clock.now();

    const run = await runMain(['add', '--file', recordsFile(env, 'd', 30)], env, {}, clock);
    expect(run.code).toBe(5);
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    expect(sandbox.pets()).toHaveLength(20);
    expect(run.stderr).toMatch(/created 20, failed 0, skipped 0, unknown 0, not sent 10/);
    expect(run.stderr).toMatch(
      /the quota of this key \(20 requests\) is used up; the next request may go at tomorrow \d\d:\d\d:\d\d, in 24\.0 h, longer than a batch waits unattended \(65 min\), so pets stopped after sending 20 requests/,
    );
    expect(clock.now() - started).toBeLessThan(1_000);
  });

  it('a daily quota on another server, in --json: the error carries the resume instant', async () => {
    const clock = concurrentClock();
    const fault = await startFaultServer(clock.now);
    onTestFinished(() => fault.close());
    // 12 a day, the day starting at midnight UTC; Reset written as seconds from now.
    const dayEnd = (Math.floor(clock.now() / 86_400_000) + 1) * 86_400_000;
    let used = 0;
    fault.handle((req, res) => {
      const quota = (remaining: number) => ({
        'x-ratelimit-limit': '12',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(Math.ceil((dayEnd - clock.now()) / 1000)),
      });
      if (used >= 12) {
        const wait = String(Math.ceil((dayEnd - clock.now()) / 1000));
        sendJson(res, 429, '{"code":"rate_limited","message":"no","status":429}', {
          ...quota(0),
          'retry-after': wait,
        });
        return;
      }
      used++;
      sendJson(res, 201, `{"id":${used},"name":"D","categoryId":1}`, quota(12 - used));
    });
    const env = apiEnv(
      { baseUrl: fault.baseUrl, key: 'daily_quota_key_0001' },
      {
        PETS_PROFILE: 'staging',
      },
    );

    const run = await runMain(
      ['add', '--file', recordsFile(env, 'j', 20), '--json'],
      env,
      {},
      clock,
    );
    expect(run.code).toBe(5);
    expect(fault.requests).toHaveLength(12);
    const error = JSON.parse(run.stderr.trim().split('\n').pop()!) as {
      error: { code: string; resetAt: string; message: string };
    };
    // Seconds from an answer that came a little after the start: Reset read up to 1 s late.
    expect(Date.parse(error.error.resetAt) - dayEnd).toBeGreaterThanOrEqual(0);
    expect(Date.parse(error.error.resetAt) - dayEnd).toBeLessThanOrEqual(1_000);
    expect(error.error.message).toMatch(/so pets stopped after sending 12 requests/);
  });

  it('a ban: the batch stops at once, however short the ban, and sends nothing into it', async () => {
    const clock = concurrentClock();
    const fault = await startFaultServer(clock.now);
    onTestFinished(() => fault.close());
    fault.handle((_req, res) =>
      sendJson(res, 429, '{"code":"key_banned","message":"banned","status":429}', {
        'retry-after': '120',
      }),
    );
    const env = apiEnv(
      { baseUrl: fault.baseUrl, key: 'banned_key_000001' },
      {
        PETS_PROFILE: 'staging',
      },
    );
    const started = clock.now();
    const run = await runMain(['add', '--file', recordsFile(env, 'b', 5)], env, {}, clock);
    expect(run.code).toBe(5);
    expect(fault.requests).toHaveLength(1);
    expect(run.stderr).toMatch(/temporarily banned this key.*and a batch does not wait out a ban/);
    expect(clock.now() - started).toBeLessThan(1_000);
    // With --max-wait, the ban is waited out as any wait would be.
    let answered = 0;
    fault.handle((_req, res) => {
      answered++;
      if (answered === 1) {
        sendJson(res, 429, '{"code":"key_banned","message":"banned","status":429}', {
          'retry-after': '120',
        });
      } else {
        sendJson(res, 201, `{"id":${answered},"name":"B","categoryId":1}`);
      }
    });
    // The second ban in a row waits at least double the first (2 × 120 s, with jitter).
    const waited = await runMain(
      ['add', '--file', recordsFile(env, 'c', 2), '--max-wait', '600'],
      env,
      {},
      clock,
    );
    expect(waited.code).toBe(0);
  });
});

describe('shared rate-limit state that cannot be written', () => {
  it('a batch refuses to start (exit 1) naming the folder; a short command warns once and goes on', async () => {
    const clock = concurrentClock();
    const sandbox = await testSandbox({ plan: 'free', now: clock.now });
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    // A file where the state's folder should be: no process can write the state there.
    const folder = join(env.PETS_CONFIG_DIR!, 'state');
    mkdirSync(env.PETS_CONFIG_DIR!, { recursive: true });
    writeFileSync(folder, 'not a folder');

    const batch = await runMain(['add', '--file', recordsFile(env, 's', 3)], env, {}, clock);
    expect(batch.code).toBe(1);
    // The first of the state folder's files a batch writes names the folder.
    expect(batch.stderr).toContain(`cannot be written in ${folder} (E`);
    expect(batch.stderr).toContain('so the batch did not start');
    const many = await runMain(['get', '1', '2'], env, {}, clock);
    expect(many.code).toBe(1);
    expect(sandbox.requestLog).toHaveLength(0);

    const short = await runMain(['list'], env, {}, clock);
    expect(short.code).toBe(0);
    const warnings = short.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the rate-limit state cannot be written in ${folder}`);
  });
});
