import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { concurrentClock, type FakeClock } from '../helpers/fake-clock.js';
import {
  sendJson,
  startFaultServer,
  type FaultServer,
  type LoggedRequest,
} from '../helpers/fault-server.js';
import { runMain, type RunResult } from '../helpers/run-main.js';

// Servers that refuse everything, counting the requests they get: each storm ends, bounded,
// with the exit code of its kind, and what pets says it sent is what the server received.
// The whole CLI runs on an injected clock, which the server's Date follows: a wait of minutes
// takes no time, and the gaps between requests are measured on it.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

type Handler = (req: LoggedRequest, res: ServerResponse, clock: FakeClock) => void;

interface Storm {
  run: RunResult;
  server: FaultServer;
  /** Time from the start to the exit, on the injected clock. */
  elapsedMs: number;
  /** The same, in real time: the run's own work, without its waits. */
  wallMs: number;
  gapsMs: number[];
}

/** Runs `args` against a server that answers every request with `handler`. */
async function storm(handler: Handler, args: (env: Record<string, string>) => string[]) {
  const clock = concurrentClock();
  const server = await startFaultServer(clock.now);
  closers.push(() => server.close());
  server.handle((req, res) => handler(req, res, clock));
  const env = apiEnv(
    { baseUrl: server.baseUrl, key: 'storm_key_0123456789' },
    { PETS_PROFILE: 'staging' },
  );
  const started = clock.now();
  const wallStart = performance.now();
  const run = await runMain(args(env), env, {}, clock);
  const at = server.requests.map((request) => request.at);
  const result: Storm = {
    run,
    server,
    elapsedMs: clock.now() - started,
    wallMs: performance.now() - wallStart,
    gapsMs: at.slice(1).map((t, i) => t - at[i]!),
  };
  return result;
}

/** What pets said it sent, from "pets stopped after sending N requests" or "nothing was sent". */
function saidSent(stderr: string): number {
  const said = saidOrNot(stderr);
  expect(said, stderr).not.toBeUndefined();
  return said!;
}

function saidOrNot(stderr: string): number | undefined {
  if (/nothing was sent/.test(stderr)) return 0;
  const match = /pets stopped after sending (\d+) requests?/.exec(stderr);
  return match ? Number(match[1]) : undefined;
}

const IDS = Array.from({ length: 20 }, (_, i) => String(i + 1));
const get20 = () => ['get', ...IDS, '--json'];
const add10 = (env: Record<string, string>) => ['add', '--file', recordsFile(env, 'storm', 10)];

const refusal = (code: string, status: number) =>
  JSON.stringify({ code, message: 'go away', status });

/** Waits between requests: at least `firstMs`, then at least double the last. */
function expectBackoff(gapsMs: number[], firstMs: number, context: string) {
  expect(gapsMs[0], context).toBeGreaterThanOrEqual(firstMs);
  for (let i = 1; i < gapsMs.length; i++) {
    expect(gapsMs[i], context).toBeGreaterThanOrEqual(2 * gapsMs[i - 1]!);
  }
}

/**
 * One line per storm, for the note: the requests the server received, the count pets
 * gave ("pets stopped after sending N", or a batch's summary), and the time to exit.
 */
function report(name: string, s: Storm, extra = '') {
  const said = saidOrNot(s.run.stderr);
  const summary =
    /created (\d+), failed (\d+), skipped (\d+), unknown (\d+)(?:, not sent (\d+))?/.exec(
      s.run.stderr,
    );
  const saidText =
    said !== undefined
      ? `pets said it sent ${said}`
      : summary
        ? `pets's summary: created ${summary[1]}, failed ${summary[2]}, unknown ${summary[4]}, not sent ${summary[5] ?? 0}`
        : 'pets gave no count';
  console.log(
    `storm ${name}: server received ${s.server.requests.length}${extra}; ${saidText}; exit ${s.run.code} after ${(s.elapsedMs / 1000).toFixed(1)} s on the injected clock (${Math.round(s.wallMs)} ms of wall time)`,
  );
}

describe('a 429 that never clears, with Retry-After: 1 and Remaining high (Why 1)', () => {
  const handler: Handler = (_req, res, clock) =>
    sendJson(res, 429, refusal('rate_limited', 429), {
      'retry-after': '1',
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '95',
      'x-ratelimit-reset': String(Math.ceil(clock.now() / 1000) + 60),
    });

  it.each([
    ['get 1..20', get20],
    ['add --file (10)', add10],
  ])(
    '%s: exit 5 after 5 refusals in a row, backing off, in well under a minute',
    async (name, args) => {
      const s = await storm(handler, args);
      report(`429 Retry-After 1, headers (${name})`, s);
      expect(s.run.code, s.run.stderr).toBe(5);
      expect(s.server.requests).toHaveLength(5);
      expect(saidSent(s.run.stderr)).toBe(s.server.requests.length);
      expect(s.run.stderr).toMatch(/429 \(rate limited\) 5 times in a row since \d\d:\d\d:\d\d/);
      expectBackoff(s.gapsMs, 1_000, s.run.stderr);
      expect(s.elapsedMs).toBeLessThan(60_000);
    },
  );
});

describe('no rate headers, and a Retry-After that says "now" (Why 2)', () => {
  it.each([
    ['0', () => '0'],
    ['a past HTTP-date', (clock: FakeClock) => new Date(clock.now() - 60_000).toUTCString()],
    ['negative', () => '-5'],
    ['garbage', () => 'soon'],
    ['absent', () => undefined],
  ])(
    'Retry-After %s: never resent at once; at least 1 s, doubling; exit 5',
    async (name, value) => {
      for (const [what, args] of [
        ['get 1..20', get20],
        ['add --file (10)', add10],
      ] as const) {
        const s = await storm((_req, res, clock) => {
          const retryAfter = value(clock);
          sendJson(
            res,
            429,
            refusal('rate_limited', 429),
            retryAfter === undefined ? {} : { 'retry-after': retryAfter },
          );
        }, args);
        report(`429 no headers, Retry-After ${name} (${what})`, s);
        expect(s.run.code, s.run.stderr).toBe(5);
        expect(s.server.requests).toHaveLength(5);
        expect(saidSent(s.run.stderr)).toBe(s.server.requests.length);
        expectBackoff(s.gapsMs, 1_000, s.run.stderr);
      }
    },
  );
});

describe('503 with Retry-After (Why 5)', () => {
  const unavailable: Handler = (_req, res) =>
    res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '2' }).end('<h1>busy</h1>');

  it('get 1..20: every wait at least the Retry-After, doubling; exit 7 after 5 in a row', async () => {
    const s = await storm(unavailable, get20);
    report('503 Retry-After 2 (get 1..20)', s);
    expect(s.run.code, s.run.stderr).toBe(7);
    expect(s.server.requests).toHaveLength(5);
    expect(saidSent(s.run.stderr)).toBe(s.server.requests.length);
    expect(s.run.stderr).toMatch(/503 \(unavailable\) 5 times in a row/);
    expectBackoff(s.gapsMs, 2_000, s.run.stderr);
  });

  it('add --file: a create answered 503 is never resent; the batch stops, bounded', async () => {
    const s = await storm(unavailable, add10);
    report('503 Retry-After 2 (add --file 10)', s);
    expect(s.run.code, s.run.stderr).toBe(7);
    // Each create went once at most: three unknown in a row stop the batch.
    const bodies = s.server.requests.map((request) => request.body);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(s.server.requests.length).toBeLessThanOrEqual(5);
    expect(s.gapsMs.every((gap) => gap >= 2_000)).toBe(true);
  });
});

describe('a 403 to everything (Why 6)', () => {
  const suspended: Handler = (_req, res) =>
    sendJson(
      res,
      403,
      JSON.stringify({ code: 'key_suspended', message: 'this key is suspended', status: 403 }),
    );

  it('add --file of 40: stops after the first, with the server code and message', async () => {
    const s = await storm(suspended, (env) => [
      'add',
      '--file',
      recordsFile(env, 'forbidden', 40),
      '--concurrency',
      '1',
    ]);
    report('403 (add --file 40)', s);
    expect(s.run.code, s.run.stderr).toBe(1);
    expect(s.server.requests).toHaveLength(1);
    expect(s.run.stderr).toContain('refused this key (403): this key is suspended');
    // The one create sent, refused, is a failure; the other 39 never left.
    expect(s.run.stderr).toMatch(/created 0, failed 1, skipped 0, unknown 0, not sent 39/);
  });

  it('add --file of 40 at the default concurrency: the workers already sending settle, no more', async () => {
    const s = await storm(suspended, (env) => [
      'add',
      '--file',
      recordsFile(env, 'forbidden', 40),
      '--json',
    ]);
    report('403 (add --file 40, default concurrency)', s);
    expect(s.run.code, s.run.stderr).toBe(1);
    // The first create probes the unknown limit alone; the rest never leave.
    expect(s.server.requests).toHaveLength(1);
    expect(s.run.stderr).toContain('"code":"key_suspended"');
  });
});

describe('rate headers that vanish after a 429 (Why 3)', () => {
  it('50 records: one request at a time once the limit is unknown, and a 429 at most per window', async () => {
    // 10 per 10 s on the server's clock; rate headers only on the first 5 answers.
    const windowMs = 10_000;
    let windowStart = Number.NEGATIVE_INFINITY;
    let used = 0;
    let answered = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    let afterFirst429 = 0;
    let seen429 = false;
    let created = 0;
    const s = await storm(
      (_req, res, clock) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, seen429 ? inFlight : 0);
        if (seen429) afterFirst429++;
        const now = clock.now();
        if (now >= windowStart + windowMs) {
          windowStart = Math.floor(now / windowMs) * windowMs;
          used = 0;
        }
        const headers: Record<string, string> =
          answered++ < 5
            ? {
                'x-ratelimit-limit': '10',
                'x-ratelimit-remaining': String(10 - used - 1),
                'x-ratelimit-reset': String(Math.ceil((windowStart + windowMs) / 1000)),
              }
            : {};
        // Answered on the next turn, so that requests sent together overlap at the server.
        setImmediate(() => {
          inFlight--;
          if (used >= 10) {
            seen429 = true;
            const wait = Math.ceil((windowStart + windowMs - now) / 1000);
            sendJson(res, 429, refusal('rate_limited', 429), { 'retry-after': String(wait) });
            return;
          }
          used++;
          created++;
          sendJson(res, 201, JSON.stringify({ id: created, name: 'V', categoryId: 1 }), headers);
        });
      },
      (env) => ['add', '--file', recordsFile(env, 'vanish', 50), '--max-wait', '600'],
    );
    const limited = s.server.requests.length - created;
    report('vanishing headers (add --file 50)', s, ` (${created} created, ${limited} × 429)`);
    expect(s.run.code, s.run.stderr).toBe(0);
    expect(created).toBe(50);
    // Once the headers were gone and a 429 had come, one request at a time, at the pace learnt.
    expect(mostInFlight).toBeLessThanOrEqual(1);
    // Each window's end is learnt by one 429, not by eight.
    expect(limited).toBeLessThanOrEqual(Math.ceil(50 / 10));
    expect(afterFirst429).toBeGreaterThan(0);
  });
});
