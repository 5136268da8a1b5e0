import type { ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { apiEnv } from '../../helpers/api-env.js';
import { tempConfigDir, tempDir } from '../../helpers/config-dir.js';
import { fakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../../src/ratelimit/server-clock.js';
import { sendJson, startFaultServer, type FaultServer } from '../../helpers/fault-server.js';
import { runMain } from '../../helpers/run-main.js';
import { testSandbox } from '../../helpers/sandbox.js';

// `pets api` against the sandbox, then against a scripted server on a fake clock.

const KEY = 'fault_key_0123456789';

describe('pets api against the sandbox', () => {
  let sandbox: RunningSandbox;
  let env: Record<string, string>;
  beforeEach(async () => {
    sandbox = await testSandbox({ plan: 'unlimited' });
    // staging: unprotected, so that writes go without a confirmation (tested in e2e/flags).
    env = apiEnv(sandbox, { PETS_NO_DEPRECATION_WARNING: '1', PETS_PROFILE: 'staging' });
  });

  it('GETs /store/orders: as received in a pipe, int64 exact', async () => {
    const result = await runMain(['api', '/store/orders'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"id":9007199254740993');
    expect(result.stdout.startsWith('[{')).toBe(true);
  });

  it('pretty-prints JSON on a terminal, int64 exact', async () => {
    const result = await runMain(['api', '/store/orders'], env, { stdoutIsTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('\n    "id": 9007199254740993,\n');
  });

  it('POSTs -f and -F fields as a JSON body, typed and int64 exact', async () => {
    const result = await runMain(
      ['api', '/pets', '-f', 'name=Rex', '-F', 'categoryId=9007199254740993', '-f', 'status=sold'],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/"name":"Rex"/);
    expect(result.stdout).toContain('"categoryId":9007199254740993');
    expect(sandbox.requestLog.at(-1)).toMatchObject({ method: 'POST', path: '/v1/pets' });
  });

  it('sends --input from a file, and from stdin', async () => {
    const file = join(tempDir('pets-api-'), 'new.json');
    writeFileSync(file, '{"name":"Mia","categoryId":4}');
    const fromFile = await runMain(['api', '/pets', '--input', file], env);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toMatch(/"name":"Mia"/);
    const fromStdin = await runMain(['api', '/pets', '--input', '-'], env, {
      stdin: '{"name":"Bo","categoryId":5}',
    });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toMatch(/"name":"Bo"/);
  });

  it('--include prints the status line and headers first', async () => {
    const result = await runMain(['api', '/store/orders', '--include'], env);
    expect(result.stdout).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(result.stdout).toMatch(/\r\ncontent-type: application\/json[^\r]*\r\n/);
    expect(result.stdout).toMatch(/\r\n\r\n\[\{"id":1/);
  });

  it('exits 3 on a 404, with the body still printed', async () => {
    const result = await runMain(['api', '/nowhere'], env);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('"code":"not_found"');
  });

  it('exits 1 on another 4xx, with the body printed', async () => {
    const result = await runMain(['api', '/store/orders', '-X', 'POST'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('method_not_allowed');
  });

  it('exits 4 on a 401, and with --json the error is the usual object on stderr', async () => {
    const result = await runMain(['api', '/store/orders', '--json'], {
      ...env,
      PETS_API_KEY: 'wrong_key_000000000000',
    });
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { exitCode: 4 } });
  });

  it('shows the deprecation notice for GET /pets/{id}', async () => {
    const added = await runMain(['api', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1'], env);
    const id = /"id":(\d+)/.exec(added.stdout)?.[1];
    const { PETS_NO_DEPRECATION_WARNING: _, ...loud } = env;
    const result = await runMain(['api', `/pets/${id}`], loud);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/deprecated/);
  });

  // Each refused path and header: callApi's tests (work.test.ts); here, one of each through the CLI.
  it.each([[['api', '/../pets']], [['api', '/store/orders', '-H', 'Authorization: Bearer other']]])(
    'refuses %j with exit 2 and sends nothing',
    async (args) => {
      const result = await runMain(args, env);
      expect(result.code).toBe(2);
      expect(sandbox.requestLog).toEqual([]);
    },
  );
});

describe('pets api against a scripted server', () => {
  let clock: FakeClock;
  let fault: FaultServer;
  let env: Record<string, string>;
  beforeEach(async () => {
    clock = fakeClock();
    fault = await startFaultServer(clock.now);
    env = {
      PETS_CONFIG_DIR: tempConfigDir(),
      PETS_PROFILE: 'staging',
      PETS_BASE_URL: fault.baseUrl,
      PETS_API_KEY: KEY,
    };
  });
  afterEach(() => fault.close());
  const pets = (...args: string[]) => runMain(args, env, {}, clock);
  const tooMany = (res: ServerResponse, retryAfter = '120') =>
    sendJson(res, 429, '{"code":"rate_limited","message":"slow down","status":429}', {
      'retry-after': retryAfter,
    });

  it('sends -H headers, with the key as the bearer', async () => {
    fault.handle((_req, res) => sendJson(res, 200, '{}'));
    expect((await pets('api', '/x', '-H', 'X-Trace: abc')).code).toBe(0);
    expect(fault.requests[0]?.headers['x-trace']).toBe('abc');
    expect(fault.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('exits 7 on a 5xx', async () => {
    fault.handle((_req, res) => sendJson(res, 500, '{"code":"boom","message":"x","status":500}'));
    const result = await pets('api', '/x', '-X', 'DELETE');
    expect(result.code).toBe(7);
    expect(fault.requests).toHaveLength(1);
  });

  it('exits 5 on a 429 after waiting what --max-wait allows', async () => {
    fault.handle((_req, res) => tooMany(res, '1'));
    const result = await pets('api', '/x', '--max-wait', '5');
    expect(result.code).toBe(5);
    expect(fault.requests.length).toBeGreaterThan(1);
  });

  it('a cooldown learned by pets list holds pets api, and the reverse', async () => {
    fault.handle((_req, res) => tooMany(res));
    expect((await pets('list')).code).toBe(5);
    const api = await pets('api', '/store/orders');
    expect(api.code).toBe(5);
    expect(api.stderr).toContain('nothing was sent');
    expect(fault.requests).toHaveLength(1);

    // Past the 120 s cooldown, however far another process's clock may be off (the skew
    // allowance): this process has read no Date of its own, yet counts the block as ended.
    await clock.sleep(120_000 + CLOCK_SKEW_ALLOWANCE_MS + 1_000);
    expect((await pets('api', '/store/orders')).code).toBe(5);
    const list = await pets('list');
    expect(list.code).toBe(5);
    expect(list.stderr).toContain('nothing was sent');
    expect(fault.requests).toHaveLength(2);
  });

  it('never resends a POST that may have arrived, and says it may have taken effect', async () => {
    fault.handle((_req, _res, socket) => socket.destroy());
    const result = await pets('api', '/pets', '-f', 'name=Rex');
    expect(result.code).toBe(6);
    expect(fault.requests).toHaveLength(1);
    expect(result.stderr).toContain('the request may have reached the server and taken effect');
  });

  it.each(['PUT', 'PATCH', 'DELETE'])(
    'says a %s cut off on its way may have taken effect, and sends it once',
    async (method) => {
      fault.handle((_req, _res, socket) => socket.destroy());
      const result = await pets('api', '/store/orders/1', '-X', method);
      expect(result.code).toBe(6);
      expect(fault.requests).toHaveLength(1);
      expect(result.stderr).toContain('may have reached the server and taken effect');
      expect(result.stderr).toContain('Check what the server holds before sending it again.');
    },
  );

  it('says nothing reached the server when the connection is refused', async () => {
    await fault.close();
    const result = await pets('api', '/store/orders/1', '-X', 'DELETE');
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('nothing reached the server');
    expect(result.stderr).not.toContain('may have');
  });

  it('gives up on a silent server after --timeout, without resending a POST', async () => {
    fault.handle(() => {});
    const result = await pets('--timeout', '0.2', 'api', '/pets', '-f', 'name=Rex');
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('no response within 0.2 s');
    expect(result.stderr).toContain('may have reached the server and taken effect');
    expect(fault.requests).toHaveLength(1);
  });

  it('stops reading a body past 8 MiB: exit 7, nothing printed', async () => {
    fault.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      for (let i = 0; i < 30; i++) res.write(chunk);
      res.end();
    });
    const result = await pets('api', '/store/orders');
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('larger than 8 MiB');
    expect(result.stdout).toBe('');
  });

  it('resends a GET after a reset connection', async () => {
    let calls = 0;
    fault.handle((_req, res, socket) =>
      calls++ === 0 ? socket.destroy() : sendJson(res, 200, '[]'),
    );
    expect((await pets('api', '/store/orders')).code).toBe(0);
    expect(fault.requests).toHaveLength(2);
  });

  it('follows no redirect', async () => {
    fault.handle((_req, res) => res.writeHead(302, { location: 'http://127.0.0.2/steal' }).end());
    const result = await pets('api', '/x');
    expect(result.code).toBe(7);
    expect(fault.requests).toHaveLength(1);
  });

  it('never shows the key, even when the server echoes it in headers and body', async () => {
    fault.handle((req, res) =>
      res
        .writeHead(200, {
          'content-type': 'text/plain',
          'x-echo': String(req.headers.authorization),
        })
        .end(`you sent ${req.headers.authorization}`),
    );
    for (const tty of [false, true]) {
      const result = await runMain(['api', '/x', '-i'], env, { stdoutIsTTY: tty }, clock);
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(KEY);
      expect(result.stdout).toContain('x-echo: Bearer ***');
    }
  });

  it('takes the key out of the answer before a --jq filter or a terminal reformats it', async () => {
    // The header's bytes, as a server that serialises a byte array sends them.
    fault.handle((req, res) =>
      sendJson(
        res,
        200,
        JSON.stringify({ echo: [...Buffer.from(String(req.headers.authorization))] }),
      ),
    );
    // A filter can compute anything from the key, such as the key reversed, which no
    // redaction after it would know: the filter gets the answer without the key.
    const reversed = [...KEY].reverse().join('');
    const filtered = await pets(
      '--jq',
      '.echo | implode | explode | reverse | implode',
      'api',
      '/x',
    );
    expect(filtered.stdout + filtered.stderr).not.toContain(reversed);
    // What is left is no longer JSON: the filter fails, with nothing printed.
    expect(filtered.stdout).toBe('');
    expect(filtered.stderr).toContain('parse error');
    const tty = await runMain(['api', '/x'], env, { stdoutIsTTY: true }, clock);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toBe('{"echo":[***]}\n');
  });

  it('prints other types raw, escaped on a terminal', async () => {
    fault.handle((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('a\u001b[31mb'),
    );
    expect((await pets('api', '/x')).stdout).toBe('a\u001b[31mb');
    const tty = await runMain(['api', '/x'], env, { stdoutIsTTY: true }, clock);
    expect(tty.stdout).toBe('a\\u001b[31mb\n');
  });

  it('sends -F int64, true, null exactly', async () => {
    fault.handle((_req, res) => sendJson(res, 201, '{}'));
    await pets(
      'api',
      '/x',
      '-F',
      'id=9223372036854775807',
      '-F',
      'ok=true',
      '-F',
      'n=null',
      '-F',
      'f=1.5',
      '-F',
      's=abc',
    );
    expect(fault.requests[0]?.body).toBe(
      '{"id":9223372036854775807,"ok":true,"n":null,"f":1.5,"s":"abc"}',
    );
    expect(fault.requests[0]?.headers['content-type']).toBe('application/json');
  });
});
