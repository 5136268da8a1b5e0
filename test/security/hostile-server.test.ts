import { spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/runtime/main.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { tempConfigDir, tempDir } from '../helpers/config-dir.js';
import {
  sendJson,
  startFaultServer,
  testFaultServer,
  type FaultServer,
} from '../helpers/fault-server.js';
import { captureIo } from '../helpers/io.js';
import { BIN } from '../helpers/run-binary.js';
import { runMain } from '../helpers/run-main.js';

// Servers that trickle, never end, answer a create with something unreadable, or send bytes
// that are not UTF-8. Timeouts are fractions of a second, so nothing here sleeps for long.
const KEY = 'sk_test_hostile_server_0001';
const PET = '{"id":1,"name":"Rex","categoryId":2}';

let fault: FaultServer;
let env: Record<string, string>;
beforeEach(async () => {
  fault = await testFaultServer();
  env = { PETS_CONFIG_DIR: tempConfigDir(), PETS_BASE_URL: fault.baseUrl, PETS_API_KEY: KEY };
});

const pets = (...args: string[]) => runMain(args, env);
const add = (...extra: string[]) => pets('add', '--name', 'Rex', '--category-id', '2', ...extra);
const posts = () => fault.requests.filter((r) => r.method === 'POST').length;

/** Sends the head, then one byte every 20 ms: each gap is short, the whole is endless. */
function trickle(status: number, chunked: boolean) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(chunked ? {} : { 'content-length': '100000' }),
    });
    res.write('[');
    const timer = setInterval(() => res.write(' '), 20);
    res.on('close', () => clearInterval(timer));
  };
}

/** Pours an endless chunked body as fast as the client reads it, kept under the size cap. */
function endless(status: number) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.write('[');
    const timer = setInterval(() => res.write(' '.repeat(64)), 5);
    res.on('close', () => clearInterval(timer));
  };
}

describe('--timeout bounds the whole response', () => {
  it.each([
    ['a trickled body with a length', trickle(200, false)],
    ['a trickled chunked body', trickle(200, true)],
    ['an endless chunked body', endless(200)],
  ])('%s: a GET ends at the deadline with exit 6', async (_what, handler) => {
    fault.handle(handler);
    const started = Date.now();
    const result = await pets('list', '--timeout', '0.4');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('no response within 0.4 s');
  });

  it.each([
    ['a trickled 201', trickle(201, true)],
    ['an endless 201', endless(201)],
  ])(
    '%s: a POST ends at the deadline, sent once, saying the pet may have been created',
    async (_what, handler) => {
      fault.handle(handler);
      const before = posts();
      const result = await add('--timeout', '0.4');
      expect(result.code).toBe(6);
      expect(result.stderr).toContain('no response within 0.4 s; the pet may have been created');
      expect(result.stderr).toContain('pets --profile production list --limit 100');
      expect(posts() - before).toBe(1);
    },
  );
});

describe('a single add always says which case it is', () => {
  it('created: prints the pet, exit 0', async () => {
    fault.handle((_req, res) => sendJson(res, 201, PET));
    const result = await add('--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 1, name: 'Rex' });
  });

  it.each([
    [
      'an HTML 201',
      (res: ServerResponse) =>
        res.writeHead(201, { 'content-type': 'text/html' }).end('<h1>Created</h1>'),
    ],
    [
      'a 201 with a string id',
      (res: ServerResponse) => sendJson(res, 201, '{"id":"1","name":"Rex","categoryId":2}'),
    ],
    [
      'a 201 declared too large',
      (res: ServerResponse) =>
        res.writeHead(201, { 'content-length': String(9 * 1024 * 1024) }).end(),
    ],
    [
      'a 201 too large, chunked',
      (res: ServerResponse) => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(`[${' '.repeat(9 * 1024 * 1024)}]`);
      },
    ],
    [
      'a 201 that is not UTF-8',
      (res: ServerResponse) =>
        res.writeHead(201).end(Buffer.from('{"id":1,"name":"R\xffx","categoryId":2}', 'latin1')),
    ],
  ])(
    '%s: exit 7, the pet may have been created, with the command to check',
    async (_what, answer) => {
      fault.handle((_req, res) => answer(res));
      const result = await add();
      expect(result.code).toBe(7);
      expect(result.stderr).toContain('the pet may have been created');
      expect(result.stderr).toContain(
        'Check with `pets --profile production list --limit 100` whether "Rex" is there',
      );
    },
  );

  it('a refused connection: nothing reached the server, the pet was not created', async () => {
    const closed = await startFaultServer();
    await closed.close();
    const result = await runMain(['add', '--name', 'Rex', '--category-id', '2'], {
      ...env,
      PETS_BASE_URL: closed.baseUrl,
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('nothing reached the server: the pet was not created');
    expect(result.stderr).not.toContain('may have');
  });

  it('a 400: the pet was not created', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 400, '{"code":"bad_request","message":"name too long","status":400}'),
    );
    const result = await add();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('name too long; the pet was not created');
  });

  it('Ctrl-C once the POST reached the server: exit 130, the pet may have been created', async () => {
    const stop = new AbortController();
    fault.handle(() => stop.abort()); // arrives, then never answers
    const io = captureIo();
    const deps = createDeps({ signal: stop.signal, io, env });
    const code = await main(['node', 'pets', 'add', '--name', 'Rex', '--category-id', '2'], deps);
    expect(code).toBe(130);
    expect(io.err()).toContain('the request had been sent: the pet may have been created');
    expect(io.err()).toContain('pets --profile production list --limit 100');
  });

  it('Ctrl-C during a rate-limit wait, before the POST went out: the pet was not created', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 429, '{"code":"rate_limited","message":"slow","status":429}', {
        'retry-after': '5',
      }),
    );
    const stop = new AbortController();
    // Ctrl-C arrives while pets waits out the Retry-After, on a clock that never sleeps.
    const clock = {
      now: () => Date.now(),
      async sleep(_ms: number, signal?: AbortSignal) {
        stop.abort();
        await Promise.resolve();
        if (signal?.aborted) throw signal.reason;
      },
    };
    const before = posts();
    const io = captureIo();
    // A config folder of its own: the cooldown this 429 leaves must not hold back other tests.
    const own = { ...env, PETS_CONFIG_DIR: tempConfigDir() };
    const deps = createDeps({ signal: stop.signal, io, env: own, clock });
    const code = await main(['node', 'pets', 'add', '--name', 'Rex', '--category-id', '2'], deps);
    expect(code).toBe(130);
    expect(io.err()).toContain('nothing was sent: the pet was not created');
    expect(io.err()).not.toContain('may have');
    expect(posts() - before).toBe(1); // the one that got the 429, and no other
  });

  it('a key with a character that is not visible ASCII in the config: exit 4, nothing sent', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = tempConfigDir();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        profiles: { production: { baseUrl: fault.baseUrl, apiKey: 'sk_live_\u043a\u043b' } },
      }),
      { mode: 0o600 },
    );
    const before = fault.requests.length;
    const result = await runMain(['add', '--name', 'Rex', '--category-id', '2'], {
      PETS_CONFIG_DIR: dir,
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      'the API key of profile "production" has a character that is not visible ASCII',
    );
    expect(result.stderr).toContain('pets auth login --profile production');
    expect(fault.requests.length).toBe(before);
  });

  it('Ctrl-C to the built binary after the POST arrived says the pet may have been created', async () => {
    const child = spawn(process.execPath, [BIN, 'add', '--name', 'Rex', '--category-id', '2'], {
      env: { PATH: process.env.PATH, ...env },
    });
    fault.handle(() => child.kill('SIGINT'));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toContain('the pet may have been created');
  }, 20_000);
});

describe('answers that are not UTF-8', () => {
  it('a list whose bytes are not UTF-8 is exit 7, not a silent U+FFFD', async () => {
    fault.handle((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(Buffer.from('[{"id":1,"name":"R\xffx","categoryId":2}]', 'latin1')),
    );
    const result = await pets('list', '--json');
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('the answer is not valid UTF-8');
    expect(result.stdout).toBe('');
  });
  it('valid UTF-8 stays as it is, with or without a BOM, read whole or in chunks', async () => {
    const body = Buffer.from('\ufeff[{"id":1,"name":"Kätzchen 🐈","categoryId":2}]');
    for (const chunked of [false, true]) {
      fault.handle((_req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(chunked ? {} : { 'content-length': String(body.length) }),
        });
        // Split inside the cat's four bytes: decoding must wait for the whole body.
        const cut = body.indexOf(0xf0) + 2;
        res.write(body.subarray(0, cut));
        res.end(body.subarray(cut));
      });
      const result = await pets('list', '--json');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)[0].name).toBe('Kätzchen 🐈');
    }
  });
});

describe('a batch says "may have been created" once', () => {
  it('per record and in the table', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 503, '{"code":"busy","message":"busy","status":503}'),
    );
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = tempDir('pets-once-');
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n');
    const json = await pets('add', '--file', file, '--json', '--yes');
    const line = JSON.parse(json.stdout.trim().split('\n')[0] ?? '');
    expect(line.error.message.match(/may have been created/g)).toHaveLength(1);
    const table = await pets('add', '--file', file, '--retry-unknown', '--yes');
    expect(table.stdout.match(/may have been created/g)).toHaveLength(1);
  });
});

describe('a closed stderr', () => {
  it('does not turn a failed add (exit 7) into exit 0', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 500, '{"code":"boom","message":"boom","status":500}'),
    );
    const before = posts();
    const child = spawn(process.execPath, [BIN, 'add', '--name', 'Rex', '--category-id', '2'], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closing the reading end before pets writes its error: every write to stderr is EPIPE.
    child.stderr.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(7);
    expect(posts() - before).toBe(1);
  }, 20_000);
});
