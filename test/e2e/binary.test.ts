import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json/int64-json.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import {
  sendJson,
  startFaultServer,
  testFaultServer,
  type FaultServer,
} from '../helpers/fault-server.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { testSandbox } from '../helpers/sandbox.js';

// These run the built bin/pets.js (npm test builds first) as a user's shell would.

let sandbox: RunningSandbox;
let fault: FaultServer;
let env: Record<string, string>;

beforeEach(async () => {
  sandbox = await testSandbox({ firstId: 9007199254740993n, plan: 'unlimited' });
  fault = await testFaultServer();
  env = apiEnv(sandbox);
});

const atFault = () => ({ ...env, PETS_BASE_URL: fault.baseUrl, PETS_API_KEY: 'fault_key_abcdef' });

describe('the pets binary', () => {
  it('prints its version and help on stdout with exit 0', async () => {
    const version = await runBinary(['--version'], env);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await runBinary(['list', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('--status <status>');
  });

  it('ends quietly when the reader closes the pipe early (pets ... | head)', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], {
      env: { PATH: process.env.PATH, ...env },
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('round-trips id 9007199254740993 exactly through add, list --json and get --json', async () => {
    const added = await runBinary(
      [
        'add',
        '--name',
        'Exact',
        '--category-id',
        '9007199254740993',
        '--status',
        'available',
        '--json',
      ],
      env,
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(
      '{"id":9007199254740993,"name":"Exact","categoryId":9007199254740993,"status":"available"}\n',
    );
    const listed = await runBinary(['list', '--json'], env);
    expect(listed.stdout).toContain(
      '{"id":9007199254740993,"name":"Exact","categoryId":9007199254740993',
    );
    const got = await runBinary(['get', '9007199254740993', '--json', '-q'], env);
    expect(got).toEqual({ code: 0, stdout: added.stdout, stderr: '' });
  });

  it('pets api: int64 exact in and out, exit codes from the answer', async () => {
    const added = await runBinary(
      ['api', '/pets', '-f', 'name=Api', '-F', 'categoryId=9223372036854775807', '--yes'],
      env,
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('"categoryId":9223372036854775807');
    const orders = await runBinary(['api', '/store/orders'], env);
    expect(orders.code).toBe(0);
    expect(orders.stdout).toContain('"id":9007199254740993');
    const missing = await runBinary(['api', '/pets/1', '--json'], env);
    expect(missing.code).toBe(3);
    expect(missing.stdout).toContain('not_found');
    // Every stderr line is JSON: the deprecation warning, then the error.
    const stderr = missing.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(stderr.at(-1)).toMatchObject({ error: { exitCode: 3 } });
    const refused = await runBinary(['api', '/%2e%2e/admin'], env);
    expect(refused.code).toBe(2);
  });

  it('exit 0: lists pets as TSV in a pipe', async () => {
    await runBinary(['add', '--name', 'Piped', '--category-id', '1'], env);
    const result = await runBinary(['list'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ID\tNAME\tCATEGORY\tSTATUS\n/);
    expect(result.stdout).toContain('\tPiped\t1\t');
  });

  it('exit 1: a 400 from the server, with its message', async () => {
    fault.handle((_req, res) =>
      sendJson(
        res,
        400,
        '{"code":"invalid_body","message":"categoryId does not exist","status":400}',
      ),
    );
    const result = await runBinary(['add', '--name', 'A', '--category-id', '5'], atFault());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('categoryId does not exist');
    expect(result.stderr).toContain('POST http://127.0.0.1');
  });

  it('exit 2: a bad flag value, an unknown command with a suggestion, nothing sent', async () => {
    const before = sandbox.requestLog.length;
    const bad = await runBinary(['list', '--limit', '0'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('integer from 1 to 100');
    const typo = await runBinary(['lst'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean list?');
    expect(sandbox.requestLog.length).toBe(before);
  });

  it('exit 2: no base URL, naming the command to run', async () => {
    const result = await runBinary(['list'], {
      PETS_CONFIG_DIR: env.PETS_CONFIG_DIR as string,
      PETS_API_KEY: 'k',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pets profile set production --base-url');
  });

  it('exit 2: a corrupt config file, named but not quoted', async () => {
    const dir = env.PETS_CONFIG_DIR as string;
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.json'),
      '{"profiles":{"production":{"apiKey":"sk_live_CANARY_corrupt"',
    );
    const result = await runBinary(['list'], { PETS_CONFIG_DIR: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(dir, 'config.json'));
    expect(result.stderr).not.toContain('CANARY');
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('exit 3: a missing pet', async () => {
    const result = await runBinary(['get', '12345', '-q'], env);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('no pet with id 12345 (404)');
  });

  it('exit 4: a key the server rejects, never echoed', async () => {
    const result = await runBinary(['list'], { ...env, PETS_API_KEY: 'sk_live_rejected_CANARY' });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('PETS_API_KEY');
    expect(result.stderr).not.toContain('CANARY');
  });

  it('exit 5: a 429 beyond --max-wait, within 2 s; the next run sends nothing', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 429, '{"code":"rate_limited","message":"Too many requests","status":429}', {
        'retry-after': '3600',
      }),
    );
    const shared = atFault();
    const before = fault.requests.length;
    const started = Date.now();
    const first = await runBinary(['list', '--json'], shared);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(first.code).toBe(5);
    const { error } = parseJson(first.stderr) as { error: Record<string, number> };
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, exitCode: 5 });
    expect(error.retryAfter).toBeGreaterThanOrEqual(3600);
    expect(fault.requests.length).toBe(before + 1);

    const second = await runBinary(['list'], shared);
    expect(second.code).toBe(5);
    expect(second.stderr).toContain('nothing was sent');
    expect(second.stderr).toMatch(/Retry after .+, or raise --max-wait/);
    expect(fault.requests.length).toBe(before + 1);
  });

  it('exit 6: nothing listening', async () => {
    const closed = await startFaultServer();
    await closed.close();
    const result = await runBinary(['list'], { ...env, PETS_BASE_URL: closed.baseUrl });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('ECONNREFUSED');
  });

  it('exit 7: an answer that breaks the contract, without a stack trace', async () => {
    fault.handle((_req, res) => sendJson(res, 200, '[{"id":"seven","name":"A","categoryId":1}]'));
    const result = await runBinary(['list'], atFault());
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('$[0].id is not an int64 integer');
    expect(result.stderr).not.toContain('undefined');
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('runs a sandbox that saves its profile and stops cleanly on SIGINT', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--json', '--seed', '2'], {
      env: { PATH: process.env.PATH, PETS_CONFIG_DIR: env.PETS_CONFIG_DIR },
    });
    const firstLine = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        if (out.includes('\n')) resolve(out.split('\n')[0] as string);
      });
      child.on('error', reject);
    });
    const info = JSON.parse(firstLine) as { baseUrl: string; key: string; profile: string };
    expect(info.profile).toBe('sandbox');
    const listed = await runBinary(['--profile', 'sandbox', 'list', '--json'], {
      PETS_CONFIG_DIR: env.PETS_CONFIG_DIR as string,
    });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(2);
    const active = await runBinary(['profile', 'show', '--json'], {
      PETS_CONFIG_DIR: env.PETS_CONFIG_DIR as string,
    });
    expect(JSON.parse(active.stdout).name).toBe('production');
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  });
});
