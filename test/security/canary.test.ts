import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PetsApi } from '../../src/api/client.js';
import { main } from '../../src/runtime/main.js';
import { buildProgram } from '../../src/cmd/root.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sendJson, startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { testSandbox } from '../helpers/sandbox.js';
import { concurrentClock } from '../helpers/fake-clock.js';
import { captureIo } from '../helpers/io.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { runMain, type RunResult } from '../helpers/run-main.js';
import { tempConfigDir, tempDir } from '../helpers/config-dir.js';

// A key that cannot appear by chance. It must never show in any output, nor in any file but
// the 0600 config.
const CANARY = 'sk_live_CANARY_5f2e9a7c41b8d306';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** No file under `dir` holds the key. */
function expectNoKeyUnder(dir: string): void {
  for (const file of filesUnder(dir)) {
    expect({ file, holdsKey: readFileSync(file, 'utf8').includes(CANARY) }).toEqual({
      file,
      holdsKey: false,
    });
  }
}

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return sub.commands.length ? commandPaths(sub, path) : [path];
  });
}

describe('the API key canary', () => {
  // The runs below are one person's session, in order, in a folder, sandbox and fault server
  // of their own; each test reads what its run printed.
  let sandbox: RunningSandbox;
  let fault: FaultServer;
  let root: string;
  const outputs = new Map<string, RunResult | Error>();
  const config = () => join(root, 'config');
  const records = () => join(root, 'pets.ndjson');
  const corrupt = () => join(root, 'corrupt');
  const profileEnv = () => ({ PETS_CONFIG_DIR: config(), PETS_PROFILE: 'staging' });
  const at = (baseUrl: string) => ({
    PETS_CONFIG_DIR: config(),
    PETS_PROFILE: 'staging',
    PETS_API_KEY: CANARY,
    PETS_BASE_URL: baseUrl,
  });
  const inProfile = (args: string[], stdin?: string) => () =>
    runMain(
      args.map((arg) => (arg === '<sandbox>' ? sandbox.baseUrl : arg)),
      profileEnv(),
      { stdin },
    );
  const failWith = (status: number, body: string, headers?: Record<string, string>) =>
    fault.handle((_req, res) => sendJson(res, status, body, headers));

  // In order: the setup first, the last subcommands change what the first ones relied on,
  // and then the same key from PETS_API_KEY through the error paths. Each run is a test of
  // its own, so that one leak does not hide another.
  const runs: Array<[string, () => Promise<RunResult>, number?]> = [
    ['profile set', inProfile(['profile', 'set', 'staging', '--base-url', '<sandbox>'])],
    ['auth login', inProfile(['auth', 'login', '--with-key'], `${CANARY}\n`)],
    ['list', inProfile(['list'])],
    ['list --json', inProfile(['list', '--json'])],
    ['list --debug', inProfile(['list', '--debug'])],
    ['add', inProfile(['add', '--name', 'Rex', '--category-id', '1'])],
    ['add --file', () => runMain(['add', '--file', records(), '--json', '--debug'], profileEnv())],
    ['get', inProfile(['get', '1'])],
    ['get many', inProfile(['get', '1', '424242', '--json'])],
    ['get -', inProfile(['get', '-'], '1\n2\n')],
    ['quota', inProfile(['quota', '--debug'])],
    ['api --debug', inProfile(['api', '/store/orders', '--include', '--debug']), 0],
    [
      'api POST',
      inProfile(['api', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1', '-i', '--json', '--yes']),
      0,
    ],
    ['api 404', inProfile(['api', '/pets/424242', '--include']), 3],
    ['api refused', inProfile(['api', '//evil.example/pets', '--debug']), 2],
    ['profile list', inProfile(['profile', 'list'])],
    ['profile show', inProfile(['profile', 'show', '--json'])],
    ['profile use', inProfile(['profile', 'use', 'staging'])],
    ['auth status', inProfile(['auth', 'status', '--debug'])],
    ['auth status --json', inProfile(['auth', 'status', '--json'])],
    ['completion', inProfile(['completion', 'bash'])],
    ['help', inProfile(['help', 'environment'])],
    ['version', inProfile(['--version'])],
    ['profile set other', inProfile(['profile', 'set', 'other', '--base-url', '<sandbox>'])],
    ['profile remove', inProfile(['profile', 'remove', 'other'])],
    ['auth logout', inProfile(['auth', 'logout', '--profile', 'production'])],
    [
      '401 --debug',
      () => {
        failWith(401, `{"code":"unauthorized","message":"bad key","status":401}`);
        return runMain(['list', '--debug'], at(fault.baseUrl));
      },
      4,
    ],
    ['401 --json', () => runMain(['auth', 'status', '--json'], at(fault.baseUrl)), 4],
    [
      '429 --json',
      () => {
        failWith(429, '{"code":"rate_limited","message":"slow","status":429}', {
          'retry-after': '7200',
        });
        return runMain(['list', '--json', '--debug'], at(fault.baseUrl));
      },
      5,
    ],
    [
      '429 batch',
      () =>
        runMain(
          ['add', '--file', records(), '--journal', join(root, 'b.journal')],
          at(fault.baseUrl),
        ),
    ],
    [
      'network',
      async () => {
        const closed = await startFaultServer();
        await closed.close();
        return runMain(['list', '--debug'], at(closed.baseUrl));
      },
      6,
    ],
    [
      'network --json',
      async () => {
        const closed = await startFaultServer();
        await closed.close();
        return runMain(['add', '--name', 'A', '--category-id', '1', '--json'], at(closed.baseUrl));
      },
      6,
    ],
    ['corrupt config', () => runMain(['list', '--debug'], { PETS_CONFIG_DIR: corrupt() }), 2],
    [
      'corrupt config --json',
      () => runMain(['auth', 'status', '--json'], { PETS_CONFIG_DIR: corrupt() }),
      2,
    ],
    [
      'crash',
      async () => {
        // A crash inside a command whose message holds the key.
        const io = captureIo();
        const env = { PETS_CONFIG_DIR: config(), PETS_PROFILE: 'staging', PETS_API_KEY: CANARY };
        const deps = createDeps({ signal: new AbortController().signal, io, env });
        const crashing = {
          listPets: () => Promise.reject(new Error(`request failed for Bearer ${CANARY}`)),
        } as unknown as PetsApi;
        const code = await main(['node', 'pets', 'list', '--debug'], {
          ...deps,
          api: async () => ({
            api: crashing,
            gate: { snapshot: {}, expect: () => false, sentCount: 0, storeView: {} },
          }),
        });
        return { code, stdout: io.out(), stderr: io.err() };
      },
      1,
    ],
    // The binary too, with the key only in its environment.
    // The 429 above left the key a cooldown of an hour: the binary exits 5 without sending.
    ['binary in a cooldown', () => runBinary(['list', '--debug'], at(fault.baseUrl)), 5],
    ['binary success', () => runBinary(['list', '--json'], at(sandbox.baseUrl)), 0],
    ['binary api', () => runBinary(['api', '/store/orders', '-i'], at(sandbox.baseUrl)), 0],
  ];

  beforeAll(async () => {
    sandbox = await startSandbox({ plan: 'unlimited', key: CANARY });
    fault = await startFaultServer();
    root = tempDir('pets-canary-');
    writeFileSync(records(), '{"name":"A","categoryId":1}\n{"name":"","categoryId":1}\n');
    // A corrupt config holding the key.
    mkdirSync(corrupt());
    writeFileSync(join(corrupt(), 'config.json'), `{"profiles":{"staging":{"apiKey":"${CANARY}"`);
    for (const [what, run] of runs) outputs.set(what, await run().catch((error: Error) => error));
  }, 120_000);
  afterAll(async () => {
    await sandbox.close();
    await fault.close();
  });

  it.each(runs)('never shows in the output of %s', (what, _run, exitCode) => {
    const result = outputs.get(what)!;
    if (result instanceof Error) throw result;
    expect(`${what}: ${result.stdout}${result.stderr}`).not.toContain(CANARY);
    if (exitCode !== undefined) expect(result.code).toBe(exitCode);
    if (what.endsWith('--debug') || what === 'crash') expect(result.stderr).toContain('Bearer ***');
  });

  it('is on disk only in the 0600 config, never in state files or journals', () => {
    expect(outputs.size).toBe(runs.length);
    const files = filesUnder(root);
    expect(files.some((f) => f.includes(`${join(config(), 'state')}`))).toBe(true);
    expect(files.some((f) => f.endsWith('.pets-journal') || f.endsWith('.journal'))).toBe(true);
    for (const file of files) {
      const holdsKey = readFileSync(file, 'utf8').includes(CANARY);
      if (file === join(config(), 'config.json')) {
        expect(holdsKey).toBe(true);
        expect(statSync(file).mode & 0o777).toBe(0o600);
      } else if (file === join(corrupt(), 'config.json')) {
        expect(holdsKey).toBe(true); // the test wrote it there
      } else {
        expect({ file, holdsKey }).toEqual({ file, holdsKey: false });
      }
    }
  });

  /**
   * Runs every command against a server that echoes the key it was sent, written by `encode`,
   * in every place a server can put text; returns each run's output and the files left.
   */
  async function echoedRuns(key: string, encode: (key: string) => string) {
    // One clock for the server's Date and the runs, as a person's: the backoff a run leaves
    // on the key has passed, by the server's clock too, when the next kind is tried.
    const clock = concurrentClock();
    const echo = await startFaultServer(clock.now);
    const dir = tempDir('pets-echo-');
    const env = {
      PETS_CONFIG_DIR: join(dir, 'config'),
      PETS_BASE_URL: echo.baseUrl,
      PETS_API_KEY: key,
    };
    const said = (req: { headers: Record<string, unknown> }) =>
      encode(String(req.headers.authorization).replace(/^Bearer /, ''));
    // Inside a JSON string as the server writes it: a form that is already JSON as it is,
    // else JSON-escaped (a quote or a \\xNN would end or break the string).
    const inJson = (req: { headers: Record<string, unknown> }) => {
      const text = said(req);
      try {
        JSON.parse(`"${text}"`);
        return text;
      } catch {
        return JSON.stringify(text).slice(1, -1);
      }
    };
    // A header holds no control or non-ASCII character: those are sent as \\uXXXX.
    const inHeader = (req: { headers: Record<string, unknown> }) =>
      said(req).replace(
        /[^\x20-\x7e]/g,
        (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
    const error = (status: number, key: string) =>
      `{"code":"echo_${key}","message":"you sent ${key}","status":${status}}`;
    const seen: Array<{ what: string; result: RunResult }> = [];
    // Each kind of answer is tried hours after the last, when the refusals it ended with no
    // longer hold the key.
    const HOURS_APART = 3 * 3_600_000;
    const run = async (what: string, args: string[]) =>
      // Retries of a 503 wait on a clock that passes at once, not for real, while letting a
      // request in flight come back (a wait for its answer would otherwise never end).
      seen.push({ what, result: await runMain(args, env, {}, clock) });
    const records = join(dir, 'pets.ndjson');
    writeFileSync(records, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n');
    try {
      for (const status of [400, 401, 404, 500, 503]) {
        await clock.sleep(HOURS_APART);
        echo.handle((req, res) =>
          sendJson(res, status, error(status, inJson(req)), { 'x-echo': inHeader(req) }),
        );
        await run(`${status} add`, ['add', '--name', 'A', '--category-id', '1', '--debug']);
        await run(`${status} add --json`, ['add', '--name', 'A', '--category-id', '1', '--json']);
        await run(`${status} get`, ['get', '1', '2', '--debug']);
        await run(`${status} api`, ['api', '/x', '-i', '--debug']);
        await run(`${status} api POST --json`, ['api', '/x', '-f', 'a=b', '-i', '--json', '--yes']);
        const journal = join(dir, `j${status}`);
        // The same records under each status: a new run each time, not a resume.
        await run(`${status} batch`, [
          'add',
          '--file',
          records,
          '--journal',
          journal,
          '--yes',
          '--new-run',
        ]);
        await run(`${status} batch --json`, [
          'add',
          '--file',
          records,
          '--journal',
          `${journal}b`,
          '--yes',
          '--json',
          '--debug',
          '--new-run',
        ]);
      }
      await clock.sleep(HOURS_APART);
      // Before the 429 below, which leaves the key an hour's cooldown.
      echo.handle((req, res) =>
        sendJson(res, 201, `{"id":1,"name":"${inJson(req)}","categoryId":1}`, {
          'x-echo': inHeader(req),
        }),
      );
      await run('201 echo api', ['api', '/x', '-i', '-f', 'a=b', '--yes']);
      seen.push({
        what: '201 echo api on a terminal',
        result: await runMain(['api', '/x', '-i'], env, { stdoutIsTTY: true }, clock),
      });
      echo.handle((req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/plain', 'x-echo': inHeader(req) })
          .end(said(req)),
      );
      await run('text echo api', ['api', '/x', '-i']);
      // Names a list shows in a table, as TSV and as JSON.
      echo.handle((req, res) =>
        sendJson(res, 200, JSON.stringify([{ id: 1, name: said(req), categoryId: 1 }]), {
          'x-echo': inHeader(req),
        }),
      );
      await run('list TSV', ['list', '--debug']);
      await run('list --json', ['list', '--json']);
      seen.push({
        what: 'list table',
        result: await runMain(['list'], env, { stdoutIsTTY: true, stdoutColumns: 100 }, clock),
      });
      await clock.sleep(HOURS_APART);
      echo.handle((req, res) =>
        sendJson(res, 429, error(429, inJson(req)), {
          'retry-after': '7200',
          'x-ratelimit-limit': inHeader(req),
          'x-ratelimit-remaining': inHeader(req),
          'x-ratelimit-reset': inHeader(req),
          'x-echo': inHeader(req),
        }),
      );
      await run('429', ['list', '--debug']);
      await run('429 --json', ['add', '--name', 'A', '--category-id', '1', '--json', '--debug']);
      await run('429 batch', [
        'add',
        '--file',
        records,
        '--journal',
        join(dir, 'j429'),
        '--yes',
        '--json',
        '--new-run',
      ]);
      await run('429 quota', ['quota', '--json', '--debug']);
      await run('429 api', ['api', '/x', '-i', '--json', '--debug']);
      await clock.sleep(HOURS_APART);
      echo.handle((req, res) =>
        sendJson(res, 201, `{"id":1,"name":"${inJson(req)}","categoryId":1}`),
      );
      await run('201 echo', ['add', '--name', 'A', '--category-id', '1']);
      await run('201 echo --json', ['add', '--name', 'A', '--category-id', '1', '--json']);
      echo.handle((req, res) => sendJson(res, 200, `[{"id":"${inJson(req)}"}]`));
      await run('bad shape', ['list', '--debug']);
      echo.handle((req, res) => sendJson(res, 200, `not json ${said(req)}`));
      await run('bad json', ['list', '--json']);
      echo.handle((req, res) =>
        res.writeHead(302, { location: `https://elsewhere.example/${inHeader(req)}` }).end(),
      );
      await run('redirect', ['list', '--debug']);
    } finally {
      await echo.close();
    }
    return { seen, files: filesUnder(dir) };
  }

  it('never shows when a hostile server echoes it back, in any output or file', async () => {
    const { seen, files } = await echoedRuns(CANARY, (key) => key);
    expect(seen.length).toBeGreaterThan(30);
    for (const { what, result } of seen) {
      expect(`${what}: ${result.stdout}${result.stderr}`).not.toContain(CANARY);
    }
    expect(seen.find((s) => s.what === '400 batch')?.result.stdout).toContain('you sent ***');
    expect(seen.find((s) => s.what === '400 batch --json')?.result.stdout).toContain(
      'you sent ***',
    );
    expect(seen.find((s) => s.what === '429')?.result.code).toBe(5);
    expect(seen.find((s) => s.what === '201 echo api')?.result.stdout).toContain('x-echo: ***\r\n');
    expect(seen.find((s) => s.what === '201 echo api')?.result.stdout).toContain('"name":"***"');
    expect(seen.find((s) => s.what === '201 echo api on a terminal')?.result.stdout).toContain(
      '"name": "***"',
    );
    expect(seen.find((s) => s.what === 'text echo api')?.result.stdout).toMatch(/\r\n\r\n\*\*\*$/);
    expect(seen.find((s) => s.what === '400 api')?.result.code).toBe(1);
    // Journals and the rate-limit state file (which keeps a 429's code) included.
    expect(files.some((f) => f.includes(join('config', 'state')))).toBe(true);
    expect(files.filter((f) => /j\d+b?$/.test(f)).length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      expect({ file, holdsKey: readFileSync(file, 'utf8').includes(CANARY) }).toEqual({
        file,
        holdsKey: false,
      });
    }
  });

  // A key with the characters servers escape, as PHP, Go, URL and form encoders write it.
  const SPECIAL = 'sk/live<CANARY>&"q"\\+=%e9;7d1e';
  const hex = (key: string, format: (code: number) => string) =>
    [...key].map((ch) => format(ch.charCodeAt(0))).join('');
  const ENCODINGS: Array<[string, (key: string) => string]> = [
    [
      'JSON as PHP writes it (\\/)',
      (key: string) => JSON.stringify(key).slice(1, -1).replace(/\//g, '\\/'),
    ],
    [
      'JSON as Go writes it (\\u003c)',
      (key: string) =>
        JSON.stringify(key)
          .slice(1, -1)
          .replace(/[<>&]/g, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`),
    ],
    [
      'every character \\uXXXX, in capitals',
      (key: string) => hex(key, (c) => `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`),
    ],
    [
      'JSON escaped twice',
      (key: string) =>
        JSON.stringify(JSON.stringify(key).slice(1, -1).replace(/\//g, '\\/')).slice(1, -1),
    ],
    ['percent-encoded', (key: string) => encodeURIComponent(key)],
    [
      'every character percent-encoded in lower case',
      (key: string) => hex(key, (c) => `%${c.toString(16)}`),
    ],
    ['form-encoded', (key: string) => new URLSearchParams({ k: key }).toString().slice(2)],
    // What gateways echo besides: the Authorization header or the key, encoded whole.
    ...[0, 1, 2].map((pad): [string, (key: string) => string] => [
      `as the header in base64 after ${pad} bytes`,
      (key: string) => Buffer.from(`${'x'.repeat(pad)}Bearer ${key}`).toString('base64'),
    ]),
    ...[0, 1, 2].map((pad): [string, (key: string) => string] => [
      `as base64url after ${pad} bytes`,
      (key: string) => Buffer.from(`${'x'.repeat(pad)}${key}`).toString('base64url'),
    ]),
    ['as the header in hex', (key: string) => Buffer.from(`Bearer ${key}`).toString('hex')],
    ['in HEX', (key: string) => Buffer.from(key).toString('hex').toUpperCase()],
    ['as HTML decimal entities', (key: string) => hex(key, (c) => `&#${c};`)],
    ['as HTML hex entities', (key: string) => hex(key, (c) => `&#x${c.toString(16)};`)],
    ['as \\xNN', (key: string) => hex(key, (c) => `\\x${c.toString(16).padStart(2, '0')}`)],
    ['in upper case', (key: string) => key.toUpperCase()],
    ['with zero-width spaces between', (key: string) => [...key].join('\u200b')],
    ['with ESC[0m between', (key: string) => [...key].join('\x1b[0m')],
  ];
  it.each(ENCODINGS)('never shows when a server echoes it %s', async (_how, encode) => {
    expect(encode(SPECIAL)).not.toBe(SPECIAL);
    const { seen, files } = await echoedRuns(SPECIAL, encode);
    expect(seen.length).toBeGreaterThan(30);
    // Nor in any other of the encodings, as a command that decodes once would leave it.
    const forms = [SPECIAL, ...ENCODINGS.map(([, other]) => other(SPECIAL))];
    const holdsKey = (text: string) => forms.some((form) => text.includes(form));
    for (const { what, result } of seen) {
      expect({ what, holdsKey: holdsKey(result.stdout + result.stderr) }).toEqual({
        what,
        holdsKey: false,
      });
    }
    // Of base64, the one or two characters that hold bits of the text beside the key stay.
    expect(seen.find((s) => s.what === '400 batch')?.result.stdout).toMatch(
      /you sent [\w-]{0,3}\*\*\*/,
    );
    expect(seen.find((s) => s.what === '201 echo api')?.result.stdout).toMatch(
      /x-echo: [\w-]{0,3}\*\*\*.{0,3}\r\n/,
    );
    expect(seen.find((s) => s.what === 'list table')?.result.stdout).toContain('***');
    for (const file of files) {
      expect({ file, holdsKey: holdsKey(readFileSync(file, 'utf8')) }).toEqual({
        file,
        holdsKey: false,
      });
    }
  });

  it("the sandbox command shows its own key, never the user's", async () => {
    const dir = tempDir('pets-canary-sb-');
    const child = spawn(process.execPath, [BIN, 'sandbox', '--json', '--no-save-profile'], {
      env: { PATH: process.env.PATH, PETS_CONFIG_DIR: dir, PETS_API_KEY: CANARY },
    });
    let out = '';
    await new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        if (out.includes('\n')) resolve();
      }),
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGINT');
    await exited;
    expect(out).toContain('"key":"sandbox_');
    expect(out).not.toContain(CANARY);
    expectNoKeyUnder(dir);
  });

  it('no command takes a key on the command line', async () => {
    const program = buildProgram(
      createDeps({ signal: new AbortController().signal, io: captureIo(), env: {} }),
      {},
    );
    const paths = commandPaths(program).filter((path) => path[0] !== '__complete');
    expect(paths.length).toBeGreaterThan(12);
    const dir = tempDir('pets-canary-argv-');
    for (const path of paths) {
      for (const flag of ['--key', '--api-key', '--token', '--apikey']) {
        // The sandbox's --key is the key the local server accepts, not the user's API key.
        if (path[0] === 'sandbox' && flag === '--key') continue;
        const result = await runMain([...path, flag, CANARY], {
          PETS_CONFIG_DIR: dir,
        });
        expect({ path, flag, code: result.code }).toEqual({ path, flag, code: 2 });
        expect(result.stdout + result.stderr).not.toContain(CANARY);
      }
    }
    expectNoKeyUnder(dir);
  });
});

describe('keys too short to redact', () => {
  // A key of a few characters also occurs in ordinary text, so it could not be kept out of
  // output: it is refused where it is given, before anything is saved or sent.
  it.each(['abc', 'k', 'sk_live'])(
    'auth login refuses %j with exit 2 and saves nothing',
    async (key) => {
      const dir = tempConfigDir();
      const sandbox = await testSandbox({ plan: 'unlimited', key: CANARY });
      await runMain(['profile', 'set', 'staging', '--base-url', sandbox.baseUrl], {
        PETS_CONFIG_DIR: dir,
      });
      const before = readFileSync(join(dir, 'config.json'), 'utf8');
      const result = await runMain(
        ['auth', 'login', '--with-key', '--profile', 'staging'],
        { PETS_CONFIG_DIR: dir },
        { stdin: `${key}\n` },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `the API key is ${key.length} characters long, shorter than the 8`,
      );
      expect(result.stderr).toContain('nothing was saved');
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    },
  );

  it('PETS_API_KEY of 3 characters exits 4 with nothing sent; 8 characters are taken', async () => {
    const sandbox = await testSandbox({ plan: 'unlimited', key: CANARY });
    const before = sandbox.requestLog.length;
    const dir = tempConfigDir();
    const env = (key: string) => ({
      PETS_CONFIG_DIR: dir,
      PETS_BASE_URL: sandbox.baseUrl,
      PETS_API_KEY: key,
    });
    for (const args of [['list'], ['add', '--name', 'Rex', '--category-id', '1', '--json']]) {
      const result = await runMain(args, env('abc'));
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('PETS_API_KEY is 3 characters long');
      expect(result.stderr).toContain('nothing was sent');
    }
    expect(sandbox.requestLog.length).toBe(before);
    // Long enough to be checked: the server, not pets, refuses it.
    const eight = await runMain(['list'], env('abcdefgh'));
    expect(eight.code).toBe(4);
    expect(eight.stderr).not.toContain('characters long');
    expect(sandbox.requestLog.length).toBe(before + 1);
  });
});
