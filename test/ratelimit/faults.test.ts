import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempConfigDir } from '../helpers/config-dir.js';
import { fakeClock, type FakeClock } from '../helpers/fake-clock.js';
import {
  sendJson,
  startFaultServer,
  type FaultServer,
  type LoggedRequest,
} from '../helpers/fault-server.js';
import { runMain } from '../helpers/run-main.js';
import { UNREADABLE_RESET_WAIT_MS } from '../../src/ratelimit/rate-headers.js';

// The whole CLI, in this process, against a scripted server, on a fake clock shared by both:
// waits of minutes take no time, and the server's log shows when each request really arrived.

const PET = '{"id":1,"name":"Rex","categoryId":2}';
let clock: FakeClock;
let fault: FaultServer;
let env: Record<string, string>;

beforeEach(async () => {
  clock = fakeClock();
  fault = await startFaultServer(clock.now);
  env = {
    PETS_CONFIG_DIR: tempConfigDir(),
    PETS_BASE_URL: fault.baseUrl,
    PETS_API_KEY: 'fault_key_0123456789',
  };
});
afterEach(() => fault.close());

const pets = (...args: string[]) => runMain(args, env, {}, clock);
const error429 = (code = 'rate_limited') =>
  JSON.stringify({ code, message: 'Too many requests', status: 429 });
const seconds = (ms: number) => String(Math.floor(ms / 1000));

/** Answers in turn with each of `answers`, then repeats the last. */
function script(
  ...answers: Array<
    (req: LoggedRequest, res: ServerResponse, socket: import('node:net').Socket) => void
  >
) {
  let index = 0;
  fault.handle((req, res, socket) => {
    const answer = answers[Math.min(index++, answers.length - 1)];
    answer?.(req, res, socket);
  });
}
const ok =
  (body = `[${PET}]`) =>
  (_req: LoggedRequest, res: ServerResponse) =>
    sendJson(res, 200, body);
const created = () => (_req: LoggedRequest, res: ServerResponse) => sendJson(res, 201, PET);
const tooMany =
  (headers: Record<string, string> = {}, code?: string) =>
  (_req: LoggedRequest, res: ServerResponse) =>
    sendJson(res, 429, error429(code), headers);

function gapsMs(requests: LoggedRequest[]): number[] {
  return requests.slice(1).map((req, i) => req.at - (requests[i] as LoggedRequest).at);
}

describe('429', () => {
  it('with Retry-After in seconds: waits at least that long, then succeeds', async () => {
    script(tooMany({ 'retry-after': '3' }), ok());
    const result = await pets('list', '--json');
    expect(result.code).toBe(0);
    expect(fault.requests).toHaveLength(2);
    expect(gapsMs(fault.requests)[0]).toBeGreaterThanOrEqual(3_000);
  });

  it('with Retry-After as an HTTP-date: waits until that date', async () => {
    const until = clock.now() + 5_000;
    script(tooMany({ 'retry-after': new Date(until).toUTCString() }), ok());
    const result = await pets('list');
    expect(result.code).toBe(0);
    expect(fault.requests[1]?.at).toBeGreaterThanOrEqual(Math.floor(until / 1000) * 1000);
  });

  it('without Retry-After: still waits, at least a second', async () => {
    script(tooMany(), ok());
    expect((await pets('list')).code).toBe(0);
    expect(gapsMs(fault.requests)[0]).toBeGreaterThanOrEqual(1_000);
  });

  it('repeated: backs off longer each time, never below the server wait, and gives up bounded', async () => {
    script(tooMany({ 'retry-after': '2' }));
    const result = await pets('list', '--max-wait', '600');
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /the server answered 429 \(rate limited\) 5 times in a row since \d\d:\d\d:\d\d, each waited out with a longer backoff, and no request succeeded between, so pets stopped after sending 5 requests/,
    );
    expect(fault.requests).toHaveLength(5);
    // At least the server's wait, and at least double the last one.
    const gaps = gapsMs(fault.requests);
    expect(gaps[0]).toBeGreaterThanOrEqual(2_000);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(2 * gaps[i - 1]!);
  });

  it('beyond --max-wait: exit 5 at once, saying when to retry, one request only', async () => {
    script(tooMany({ 'retry-after': '3600' }));
    const result = await pets('list', '--json');
    expect(result.code).toBe(5);
    const { error } = JSON.parse(result.stderr);
    expect(error.retryAfter).toBeGreaterThanOrEqual(3600);
    expect(error.message).toContain('beyond --max-wait (60 s)');
    expect(fault.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('on a POST: waits and resends, since a 429 created nothing', async () => {
    script(tooMany({ 'retry-after': '2' }), created());
    const result = await pets('add', '--name', 'Rex', '--category-id', '2');
    expect(result.code).toBe(0);
    expect(fault.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(gapsMs(fault.requests)[0]).toBeGreaterThanOrEqual(2_000);
  });

  it('a ban: exit 5 with the ban named, no sleeping for minutes', async () => {
    script(tooMany({ 'retry-after': '600' }, 'key_banned'));
    const result = await pets('list');
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('Stop every script that uses this key');
    expect(clock.sleeps).toEqual([]);
  });
});

describe('X-RateLimit-*', () => {
  const quotaHeaders = (remaining: number, resetInMs: number) => ({
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': seconds(clock.now() + resetInMs),
  });

  it('Remaining 0 with a future Reset: the next run waits for Reset before sending', async () => {
    fault.handle((_req, res) => sendJson(res, 200, `[${PET}]`, quotaHeaders(0, 20_000)));
    const reset = Math.floor((clock.now() + 20_000) / 1000) * 1000;
    expect((await pets('list')).code).toBe(0);
    expect((await pets('list')).code).toBe(0);
    expect(fault.requests[1]?.at).toBeGreaterThanOrEqual(reset);
  });

  it('Remaining 0 with an unreadable Reset: a short wait before asking again, not a send at once', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 200, `[${PET}]`, {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': 'whenever',
        'retry-after': 'whenever',
      }),
    );
    expect((await pets('list')).code).toBe(0);
    expect((await pets('list')).code).toBe(0);
    expect(clock.sleeps).toEqual([UNREADABLE_RESET_WAIT_MS]);
    expect(fault.requests[1]!.at - fault.requests[0]!.at).toBeGreaterThanOrEqual(
      UNREADABLE_RESET_WAIT_MS,
    );
  });

  it("a mock's Limit 0, Remaining 0, Reset 0 on a 200: the answer is believed, no wait", async () => {
    fault.handle((_req, res) =>
      sendJson(res, 200, `[${PET}]`, {
        'x-ratelimit-limit': '0',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '0',
      }),
    );
    for (let run = 0; run < 3; run++) expect((await pets('list')).code).toBe(0);
    expect(clock.sleeps).toEqual([]);
    expect(fault.requests).toHaveLength(3);
  });

  it('-q: a stop after another client showed up names PETS_RATE_STORE in its one error', async () => {
    const quota = (remaining: number) => ({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': seconds(clock.now() + 30_000),
    });
    // Budget left, yet refused: another client uses the key; then refused until pets stops.
    script(
      (_req, res) => sendJson(res, 200, `[${PET}]`, quota(9)),
      tooMany({ 'retry-after': '1', ...quota(3) }),
    );
    expect((await pets('list')).code).toBe(0);
    const run = await pets('list', '-q');
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/^error: .*\n.*set PETS_RATE_STORE \(pets help rate-limits\)\.\n$/);
  });

  it('garbage rate-limit headers: no information, no wait', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 200, `[${PET}]`, {
        'x-ratelimit-limit': 'many',
        'x-ratelimit-remaining': '-3',
        'x-ratelimit-reset': 'soon',
      }),
    );
    expect((await pets('list')).code).toBe(0);
    expect((await pets('list')).code).toBe(0);
    expect(clock.sleeps).toEqual([]);
  });

  it('paces a stream to the budget: no 429, and no slower than the window allows', async () => {
    // A server with a fixed window of 6 requests per 10 s, counted from the window's first request.
    let windowStart = -Infinity;
    let used = 0;
    fault.handle((_req, res) => {
      const now = clock.now();
      if (now >= windowStart + 10_000) {
        windowStart = now;
        used = 0;
      }
      used++;
      const headers = {
        'x-ratelimit-limit': '6',
        'x-ratelimit-remaining': String(Math.max(0, 6 - used)),
        'x-ratelimit-reset': String(Math.ceil((windowStart + 10_000) / 1000)),
      };
      if (used > 6) sendJson(res, 429, error429(), { ...headers, 'retry-after': '10' });
      else sendJson(res, 200, `[${PET}]`, headers);
    });
    const started = clock.now();
    for (let i = 0; i < 18; i++) expect((await pets('list', '-q')).code).toBe(0);
    const elapsed = clock.now() - started;
    expect(fault.requests).toHaveLength(18);
    // 18 requests are three windows: the ideal is two full windows and a third spread out.
    expect(elapsed).toBeGreaterThanOrEqual(20_000);
    expect(elapsed).toBeLessThanOrEqual(30_000 * 1.15);
  });
});

describe('server and network faults', () => {
  it('503 with an HTML body: a GET is retried, then succeeds', async () => {
    script(
      (_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>busy</h1>'),
      ok(),
    );
    expect((await pets('list')).code).toBe(0);
    expect(fault.requests).toHaveLength(2);
  });

  it('503 on every try: a GET gives up with exit 7 after a bounded number of attempts', async () => {
    script((_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>busy</h1>'));
    const result = await pets('list');
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(
      /the server answered 503 \(unavailable\) 5 times in a row since .*, so pets stopped after sending 5 requests/,
    );
    expect(fault.requests).toHaveLength(5);
    const gaps = gapsMs(fault.requests);
    expect(gaps[0]).toBeGreaterThanOrEqual(1_000);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(2 * gaps[i - 1]!);
  });

  it('503 on a POST: never resent, exit 7, the pet may have been created', async () => {
    script((_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>busy</h1>'));
    const result = await pets('add', '--name', 'Rex', '--category-id', '2');
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('the pet may have been created');
    expect(fault.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('a connection reset after the POST was sent: never resent, exit 6, may have been created', async () => {
    script((_req, _res, socket) => socket.destroy());
    const result = await pets('add', '--name', 'Rex', '--category-id', '2');
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('the pet may have been created');
    expect(fault.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('a connection reset before the request was read: a GET is retried', async () => {
    fault.resetConnections(1);
    script(ok());
    expect((await pets('list')).code).toBe(0);
    expect(fault.requests).toHaveLength(1);
  });

  it('a connection reset before the POST was read: not resent, since pets cannot know', async () => {
    fault.resetConnections(1);
    script(created());
    const result = await pets('add', '--name', 'Rex', '--category-id', '2');
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('may have been created');
    expect(fault.requests).toHaveLength(0);
  });

  it('a connection reset on a GET: retried', async () => {
    script((_req, _res, socket) => socket.destroy(), ok());
    expect((await pets('list')).code).toBe(0);
    expect(fault.requests).toHaveLength(2);
  });

  it.each([
    ['a header line that is no header', 'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n'],
    ['a status line that is no HTTP', 'HTTP/9 OK\r\n\r\n'],
    ['headers past 16 KiB', `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`],
  ])('an answer that is not HTTP (%s): exit 7 at once, never asked again', async (_, raw) => {
    script((_req, _res, socket) => socket.end(raw));
    const result = await pets('list');
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(
      /^error: GET .*\/pets: the answer is not valid HTTP\/1\.1 \((Invalid header token|Expected dot|headers over 16 KiB, UND_ERR_HEADERS_OVERFLOW)\)\n/,
    );
    expect(fault.requests).toHaveLength(1);
  });

  it('out of file handles (EMFILE) on a create: nothing was sent, the pet was not created', async () => {
    const net = await import('node:net');
    const connect = vi.spyOn(net.default, 'connect').mockImplementation(() => {
      const socket = new net.Socket();
      const error = Object.assign(new Error('connect EMFILE'), { code: 'EMFILE' });
      process.nextTick(() => socket.destroy(error));
      return socket;
    });
    try {
      const result = await pets('add', '--name', 'Rex', '--category-id', '2');
      expect(result.code).toBe(6);
      expect(result.stderr).toMatch(
        /failed: EMFILE \(5 attempts\); nothing reached the server: the pet was not created\n/,
      );
      expect(result.stderr).not.toContain('may have been created');
    } finally {
      connect.mockRestore();
    }
    expect(fault.requests).toHaveLength(0);
  });

  it('a server that hangs past --timeout: exit 6, not retried', async () => {
    fault.handle(() => {});
    const result = await pets('list', '--timeout', '0.2');
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('no response within 0.2 s');
    expect(fault.requests).toHaveLength(1);
  });

  it('truncated JSON: exit 7', async () => {
    script(ok('[{"id":1,"name":"Re'));
    const result = await pets('list');
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('not valid JSON');
  });

  it('a 30 MB body: exit 7 without reading it all', async () => {
    fault.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < 30; i++) res.write(chunk);
      res.end();
    });
    const result = await pets('list');
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('larger than 8 MiB');
  });
});

describe('across processes', () => {
  it('a cooldown left by one run stops the next before it sends', async () => {
    script(tooMany({ 'retry-after': '120' }));
    expect((await pets('list')).code).toBe(5);
    const next = await pets('add', '--name', 'Rex', '--category-id', '2');
    expect(next.code).toBe(5);
    expect(next.stderr).toContain('nothing was sent');
    expect(fault.requests).toHaveLength(1);
  });

  it('a run within --max-wait waits out the cooldown left by the last one', async () => {
    script(tooMany({ 'retry-after': '30' }), ok());
    expect((await pets('list', '--max-wait', '0')).code).toBe(5);
    const next = await pets('list');
    expect(next.code).toBe(0);
    expect(gapsMs(fault.requests)[0]).toBeGreaterThanOrEqual(30_000);
  });

  it('a missing or corrupt state file is an empty state', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 200, `[${PET}]`, {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '59',
        'x-ratelimit-reset': seconds(clock.now() + 60_000),
      }),
    );
    const { mkdirSync, writeFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    expect((await pets('list')).code).toBe(0);
    const dir = join(env.PETS_CONFIG_DIR as string, 'state');
    // The state files (this process keeps its lock's folder beside them until it exits).
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      writeFileSync(join(dir, file), '{not json');
    }
    mkdirSync(dir, { recursive: true });
    expect((await pets('list')).code).toBe(0);
  });

  it('never writes the key into the state file', async () => {
    script(tooMany({ 'retry-after': '120' }));
    await pets('list');
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = join(env.PETS_CONFIG_DIR as string, 'state');
    const files = readdirSync(dir).filter((name) => !name.includes('.json.lock.'));
    expect(files).toHaveLength(1);
    const file = join(dir, files[0] as string);
    expect(readFileSync(file, 'utf8')).not.toContain('fault_key_0123456789');
    expect(files[0]).not.toContain('fault_key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
