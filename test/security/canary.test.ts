import { spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PetsApi } from '../../src/api/client.js';
import { main } from '../../src/cli/main.js';
import { buildProgram } from '../../src/cli/program.js';
import { createDeps } from '../../src/cli/wiring.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sendJson, startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { captureIo } from '../helpers/io.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { runMain, type RunResult } from '../helpers/run-main.js';

// A key that cannot appear by chance. It must never show in any output, nor in any file but
// the 0600 config.
const CANARY = 'sk_live_CANARY_5f2e9a7c41b8d306';

let sandbox: RunningSandbox;
let fault: FaultServer;
let root: string;
const outputs: Array<{ what: string; result: RunResult }> = [];

beforeAll(async () => {
  sandbox = await startSandbox({ plan: 'unlimited', key: CANARY });
  fault = await startFaultServer();
  root = mkdtempSync(join(tmpdir(), 'pets-canary-'));
});
afterAll(async () => {
  await sandbox.close();
  await fault.close();
});

async function record(what: string, run: Promise<RunResult>): Promise<RunResult> {
  const result = await run;
  outputs.push({ what, result });
  return result;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return sub.commands.length ? commandPaths(sub, path) : [path];
  });
}

describe('the API key canary', () => {
  it('never shows in any output of any command or error path, whatever its source', async () => {
    const config = join(root, 'config');
    const profileEnv = { PETS_CONFIG_DIR: config, PETS_PROFILE: 'staging' };
    const envKeyEnv = { PETS_CONFIG_DIR: config, PETS_PROFILE: 'staging', PETS_API_KEY: CANARY };
    const records = join(root, 'pets.ndjson');
    writeFileSync(records, '{"name":"A","categoryId":1}\n{"name":"","categoryId":1}\n');

    // Setup, and every subcommand, with the key from stdin login (the profile).
    await record(
      'profile set',
      runMain(['profile', 'set', 'staging', '--base-url', sandbox.baseUrl], profileEnv),
    );
    await record(
      'auth login',
      runMain(['auth', 'login', '--with-key'], profileEnv, { stdin: `${CANARY}\n` }),
    );
    for (const [what, args, stdin] of [
      ['list', ['list']],
      ['list --json', ['list', '--json']],
      ['list --debug', ['list', '--debug']],
      ['add', ['add', '--name', 'Rex', '--category-id', '1']],
      ['add --file', ['add', '--file', records, '--json', '--debug']],
      ['get', ['get', '1']],
      ['get many', ['get', '1', '424242', '--json']],
      ['get -', ['get', '-'], '1\n2\n'],
      ['quota', ['quota', '--debug']],
      ['profile list', ['profile', 'list']],
      ['profile show', ['profile', 'show', '--json']],
      ['profile use', ['profile', 'use', 'staging']],
      ['auth status', ['auth', 'status', '--debug']],
      ['auth status --json', ['auth', 'status', '--json']],
      ['completion', ['completion', 'bash']],
      ['help', ['help', 'environment']],
      ['version', ['--version']],
    ] as Array<[string, string[], string?]>) {
      await record(what, runMain(args, profileEnv, { stdin }));
    }

    // The last two subcommands change what the first ones relied on, so they run last.
    await record(
      'profile set other',
      runMain(['profile', 'set', 'other', '--base-url', sandbox.baseUrl], profileEnv),
    );
    await record('profile remove', runMain(['profile', 'remove', 'other'], profileEnv));
    await record('auth logout', runMain(['auth', 'logout', '--profile', 'production'], profileEnv));

    // The same key from PETS_API_KEY, through the error paths.
    const at = (baseUrl: string) => ({ ...envKeyEnv, PETS_BASE_URL: baseUrl });
    fault.handle((_req, res) =>
      sendJson(res, 401, `{"code":"unauthorized","message":"bad key","status":401}`),
    );
    await record('401 --debug', runMain(['list', '--debug'], at(fault.baseUrl)));
    await record('401 --json', runMain(['auth', 'status', '--json'], at(fault.baseUrl)));
    fault.handle((_req, res) =>
      sendJson(res, 429, '{"code":"rate_limited","message":"slow","status":429}', {
        'retry-after': '3600',
      }),
    );
    await record('429 --json', runMain(['list', '--json', '--debug'], at(fault.baseUrl)));
    await record(
      '429 batch',
      runMain(['add', '--file', records, '--journal', join(root, 'b.journal')], at(fault.baseUrl)),
    );
    const closed = await startFaultServer();
    await closed.close();
    await record('network', runMain(['list', '--debug'], at(closed.baseUrl)));
    await record(
      'network --json',
      runMain(['add', '--name', 'A', '--category-id', '1', '--json'], at(closed.baseUrl)),
    );

    // A corrupt config holding the key; a crash inside a command whose message holds it.
    const corrupt = join(root, 'corrupt');
    mkdirSync(corrupt);
    writeFileSync(join(corrupt, 'config.json'), `{"profiles":{"staging":{"apiKey":"${CANARY}"`);
    await record('corrupt config', runMain(['list', '--debug'], { PETS_CONFIG_DIR: corrupt }));
    await record(
      'corrupt config --json',
      runMain(['auth', 'status', '--json'], { PETS_CONFIG_DIR: corrupt }),
    );
    const io = captureIo();
    const deps = createDeps({ signal: new AbortController().signal, io, env: envKeyEnv });
    const crashing = {
      listPets: () => Promise.reject(new Error(`request failed for Bearer ${CANARY}`)),
    } as unknown as PetsApi;
    const code = await main(['node', 'pets', 'list', '--debug'], {
      ...deps,
      api: async () => crashing,
    });
    outputs.push({ what: 'crash', result: { code, stdout: io.out(), stderr: io.err() } });
    expect(code).toBe(1);

    // The binary too, with the key only in its environment.
    await record('binary 401', runBinary(['list', '--debug'], at(fault.baseUrl)));
    await record('binary success', runBinary(['list', '--json'], at(sandbox.baseUrl)));

    expect(outputs.length).toBeGreaterThanOrEqual(30);
    for (const { what, result } of outputs) {
      expect(`${what}: ${result.stdout}${result.stderr}`).not.toContain(CANARY);
    }
    expect(outputs.find((o) => o.what === 'list --debug')?.result.stderr).toContain('Bearer ***');
    expect(outputs.find((o) => o.what === '401 --debug')?.result.code).toBe(4);
    expect(outputs.find((o) => o.what === '429 --json')?.result.code).toBe(5);
    expect(outputs.find((o) => o.what === 'network')?.result.code).toBe(6);
    expect(outputs.find((o) => o.what === 'corrupt config')?.result.code).toBe(2);
    expect(outputs.find((o) => o.what === 'crash')?.result.stderr).toContain('Bearer ***');

    // On disk: only the 0600 config holds the key; state files and journals never do.
    const files = [
      ...filesUnder(root),
      ...filesUnder(tmpdir()).filter((f) => f.startsWith(`${records}.`)),
    ];
    expect(files.some((f) => f.includes(`${join(config, 'state')}`))).toBe(true);
    expect(files.some((f) => f.endsWith('.pets-journal') || f.endsWith('.journal'))).toBe(true);
    for (const file of files) {
      const holdsKey = readFileSync(file, 'utf8').includes(CANARY);
      if (file === join(config, 'config.json')) {
        expect(holdsKey).toBe(true);
        expect(statSync(file).mode & 0o777).toBe(0o600);
      } else if (file === join(corrupt, 'config.json')) {
        expect(holdsKey).toBe(true); // the test wrote it there
      } else {
        expect({ file, holdsKey }).toEqual({ file, holdsKey: false });
      }
    }
  });

  it('never shows when a hostile server echoes it back, in any output or file', async () => {
    const echo = await startFaultServer();
    const dir = mkdtempSync(join(tmpdir(), 'pets-echo-'));
    const env = {
      PETS_CONFIG_DIR: join(dir, 'config'),
      PETS_BASE_URL: echo.baseUrl,
      PETS_API_KEY: CANARY,
    };
    // The key it was sent, echoed in every place a server can put text.
    const said = (req: { headers: Record<string, unknown> }) =>
      String(req.headers.authorization).replace(/^Bearer /, '');
    const error = (status: number, key: string) =>
      `{"code":"echo_${key}","message":"you sent ${key}","status":${status}}`;
    const seen: Array<{ what: string; result: RunResult }> = [];
    const run = async (what: string, args: string[]) =>
      seen.push({ what, result: await runMain(args, env) });
    const records = join(dir, 'pets.ndjson');
    writeFileSync(records, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n');
    try {
      for (const status of [400, 401, 404, 500, 503]) {
        echo.handle((req, res) =>
          sendJson(res, status, error(status, said(req)), { 'x-echo': said(req) }),
        );
        await run(`${status} add`, ['add', '--name', 'A', '--category-id', '1', '--debug']);
        await run(`${status} add --json`, ['add', '--name', 'A', '--category-id', '1', '--json']);
        await run(`${status} get`, ['get', '1', '2', '--debug']);
        const journal = join(dir, `j${status}`);
        await run(`${status} batch`, ['add', '--file', records, '--journal', journal, '--yes']);
        await run(`${status} batch --json`, [
          'add',
          '--file',
          records,
          '--journal',
          `${journal}b`,
          '--yes',
          '--json',
          '--debug',
        ]);
      }
      echo.handle((req, res) =>
        sendJson(res, 429, error(429, said(req)), {
          'retry-after': '3600',
          'x-ratelimit-limit': said(req),
          'x-ratelimit-remaining': said(req),
          'x-ratelimit-reset': said(req),
          'x-echo': said(req),
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
      ]);
      await run('429 quota', ['quota', '--json', '--debug']);
      echo.handle((req, res) =>
        sendJson(res, 201, `{"id":1,"name":"${said(req)}","categoryId":1}`),
      );
      await run('201 echo', ['add', '--name', 'A', '--category-id', '1']);
      await run('201 echo --json', ['add', '--name', 'A', '--category-id', '1', '--json']);
      echo.handle((req, res) => sendJson(res, 200, `[{"id":"${said(req)}"}]`));
      await run('bad shape', ['list', '--debug']);
      echo.handle((req, res) => sendJson(res, 200, `not json ${said(req)}`));
      await run('bad json', ['list', '--json']);
      echo.handle((req, res) =>
        res.writeHead(302, { location: `https://elsewhere.example/${said(req)}` }).end(),
      );
      await run('redirect', ['list', '--debug']);
    } finally {
      await echo.close();
    }
    expect(seen.length).toBeGreaterThan(30);
    for (const { what, result } of seen) {
      expect(`${what}: ${result.stdout}${result.stderr}`).not.toContain(CANARY);
    }
    expect(seen.find((s) => s.what === '400 batch')?.result.stdout).toContain('you sent ***');
    expect(seen.find((s) => s.what === '400 batch --json')?.result.stdout).toContain(
      'you sent ***',
    );
    expect(seen.find((s) => s.what === '429')?.result.code).toBe(5);
    // Journals and the rate-limit state file (which keeps a 429's code) included.
    const files = filesUnder(dir);
    expect(files.some((f) => f.includes(join('config', 'state')))).toBe(true);
    expect(files.filter((f) => /j\d+b?$/.test(f)).length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      expect({ file, holdsKey: readFileSync(file, 'utf8').includes(CANARY) }).toEqual({
        file,
        holdsKey: false,
      });
    }
  });

  it("the sandbox command shows its own key, never the user's", async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--json', '--no-save-profile'], {
      env: { PATH: process.env.PATH, PETS_CONFIG_DIR: join(root, 'sb'), PETS_API_KEY: CANARY },
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
  });

  it('no command takes a key on the command line', async () => {
    const program = buildProgram(
      createDeps({ signal: new AbortController().signal, io: captureIo(), env: {} }),
      {},
    );
    const paths = commandPaths(program).filter((path) => path[0] !== '__complete');
    expect(paths.length).toBeGreaterThan(12);
    for (const path of paths) {
      for (const flag of ['--key', '--api-key', '--token', '--apikey']) {
        // The sandbox's --key is the key the local server accepts, not the user's API key.
        if (path[0] === 'sandbox' && flag === '--key') continue;
        const result = await runMain([...path, flag, CANARY], {
          PETS_CONFIG_DIR: join(root, 'argv'),
        });
        expect({ path, flag, code: result.code }).toEqual({ path, flag, code: 2 });
        expect(result.stdout + result.stderr).not.toContain(CANARY);
      }
    }
  });
});
