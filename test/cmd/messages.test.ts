import { createServer } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import { fakeClock } from '../helpers/fake-clock.js';
import { startFaultServer } from '../helpers/fault-server.js';
import { runMain } from '../helpers/run-main.js';
import { testSandbox } from '../helpers/sandbox.js';

// Each message says what happened and what to do next, and is true.

let sandbox: RunningSandbox;
let petId: string;

beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited', seed: 1 });
  petId = String(sandbox.pets()[0]!.id);
});

describe('a refused connection', () => {
  it('is tried twice, says so, and hints at what fits (not --timeout)', async () => {
    const closed = await startFaultServer();
    await closed.close();
    const clock = fakeClock();
    const env = apiEnv({ baseUrl: closed.baseUrl, key: 'refused_key_abcdef' });
    const result = await runMain(['list'], env, { stderrIsTTY: true }, clock);
    expect(result.code).toBe(6);
    expect(clock.sleeps.length).toBe(1);
    expect(result.stderr).toContain('connection refused, retrying in 1 s, attempt 2/2');
    expect(result.stderr).toMatch(/failed: connection refused \(ECONNREFUSED\) \(2 attempts\)/);
    expect(result.stderr).toContain(`Nothing is listening at ${new URL(closed.baseUrl).host}`);
    expect(result.stderr).not.toContain('--timeout');
    const json = await runMain(['list', '--json'], env, {}, fakeClock());
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'connection_refused',
      exitCode: 6,
    });
  });
});

describe('the deprecation notice of get', () => {
  it("is one line with the server's Sunset date that fits 80 columns, and suggests no list for an id", async () => {
    const result = await runMain(['get', petId], apiEnv(sandbox));
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([
      'warning: GET /pets/{petId} is deprecated; the server removes it on 2030-12-05.',
    ]);
    expect(lines[0]!.length).toBeLessThanOrEqual(80);
    expect(result.stderr).not.toContain('pets list');
  });

  it("follows the server's Sunset date, and falls back to the announced one", async () => {
    const fault = await startFaultServer();
    try {
      const env = apiEnv({ baseUrl: fault.baseUrl, key: 'fault_key_abcdef' });
      fault.handle((_req, res) =>
        res
          .writeHead(200, {
            'content-type': 'application/json',
            sunset: 'Sat, 01 Jun 2030 00:00:00 GMT',
          })
          .end('{"id":1,"name":"A","categoryId":1}'),
      );
      expect((await runMain(['get', '1'], env)).stderr).toContain(
        'the server removes it on 2030-06-01.',
      );
      fault.handle((_req, res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"id":1,"name":"A","categoryId":1}'),
      );
      const announced = (await runMain(['get', '1'], env)).stderr.trimEnd();
      expect(announced).toBe(
        'warning: GET /pets/{petId} is deprecated and goes away on 2030-12-05.',
      );
      expect(announced.length).toBeLessThanOrEqual(80);
    } finally {
      await fault.close();
    }
  });

  it('colours warning: as error: is coloured, on a terminal, and -q silences it', async () => {
    const colored = await runMain(['get', petId], apiEnv(sandbox), { stderrIsTTY: true });
    expect(colored.stderr).toContain('\u001b[33mwarning:\u001b[39m GET /pets/{petId}');
    expect((await runMain(['get', petId, '-q'], apiEnv(sandbox))).stderr).toBe('');
  });
});

describe('404', () => {
  it('is said the same way for one id and for several', async () => {
    const env = apiEnv(sandbox, { PETS_NO_DEPRECATION_WARNING: '1' });
    const one = await runMain(['get', '999999'], env);
    expect(one.code).toBe(3);
    // Each fact once: the server's "pet not found: no pet has the id …" is left to --debug.
    expect(one.stderr).toBe('error: no pet with id 999999 (404)\n');
    const several = await runMain(['get', '999999', petId], env);
    expect(several.code).toBe(3);
    expect(several.stderr).toBe(one.stderr);
    const json = await runMain(['get', '999999', '999998', '--json'], env);
    const line = JSON.parse(json.stdout.split('\n')[0]!);
    expect(`error: ${line.error.message}\n`).toBe(one.stderr);
    const colored = await runMain(['get', '999999', petId], env, { stderrIsTTY: true });
    expect(colored.stderr).toContain('\u001b[31merror:\u001b[39m no pet');
  });
});

describe("the server's own words", () => {
  it("go to --debug and the JSON error's detail, not into the message", async () => {
    const env = apiEnv(sandbox, { PETS_NO_DEPRECATION_WARNING: '1' });
    const debug = await runMain(['get', '999999', '--debug'], env);
    expect(debug.stderr).toMatch(
      /\nerror: no pet with id 999999 \(404\)\nthe server said: .*999999.*\n$/,
    );
    const json = await runMain(['get', '999999', '--json'], env);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'not_found',
        message: 'no pet with id 999999 (404)',
        status: 404,
        exitCode: 3,
        detail: expect.stringContaining('999999'),
      },
    });
  });

  it('are the message only where they are the one reason given (a 400)', async () => {
    const fault = await startFaultServer();
    try {
      const env = apiEnv({ baseUrl: fault.baseUrl, key: 'fault_key_abcdef' });
      fault.handle((_req, res) =>
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"code":"server_error","message":"the database is down","status":500}'),
      );
      const failed = await runMain(['list', '--json'], env, {}, fakeClock());
      expect(JSON.parse(failed.stderr.trim().split('\n').at(-1)!).error).toMatchObject({
        message: `GET ${fault.baseUrl}/pets: the server failed (500)`,
        detail: 'the database is down',
      });
      fault.handle((_req, res) =>
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"code":"invalid_query","message":"limit is too large","status":400}'),
      );
      const rejected = await runMain(['list'], env);
      expect(rejected.stderr).toBe(
        `error: GET ${fault.baseUrl}/pets was rejected (400): limit is too large\n`,
      );
    } finally {
      await fault.close();
    }
  });
});

describe('an invalid id on stdin', () => {
  it('exits with the exit code its JSON line gives', async () => {
    const env = apiEnv(sandbox, { PETS_NO_DEPRECATION_WARNING: '1' });
    const result = await runMain(['get', '-', '--json'], env, { stdin: `${petId}\nabc\n` });
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[1].error.exitCode).toBe(2);
    expect(result.code).toBe(lines[1].error.exitCode);
  });
});

describe('add without all of its fields', () => {
  it.each([
    [['--name', 'x'], 'add is missing --category-id'],
    [['--category-id', '3'], 'add is missing --name'],
    [[], 'add is missing --name and --category-id'],
  ])('%j names what is missing', async (args, message) => {
    const result = await runMain(['add', ...args], apiEnv(sandbox));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('pets sandbox on a busy port', () => {
  it('exits 2 saying the port is in use', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      const result = await runMain(
        ['sandbox', '--port', String(port), '--no-save-profile'],
        apiEnv(sandbox),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: port ${port} is in use`);
      expect(result.stderr).not.toContain('unexpectedly');
    } finally {
      busy.close();
    }
  });
});
