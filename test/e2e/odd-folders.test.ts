import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { stateName } from '../../src/ratelimit/state-store.js';
import { normalizedOrigin } from '../../src/config/base-url.js';
import { keyFingerprint } from '../../src/config/key-fingerprint.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { BIN, EXECUTABLE, runBinary } from '../helpers/run-binary.js';
import type { RunResult } from '../helpers/run-main.js';
import { testSandbox } from '../helpers/sandbox.js';

// Folders that are not as pets would make them, through the built binary: read-only, not
// writable by this user, full, linked, readable by others, planted. The first three need a
// mount namespace (`unshare -m`, as root): pets then runs with a tmpfs of its own on /mnt,
// and is skipped with a message where that is refused.

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const namespaces =
  process.platform === 'linux' &&
  spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs tmpfs /mnt && setpriv --help']).status ===
    0;
if (!namespaces) {
  console.log('skipped: the read-only, EACCES and full-disk tests need `unshare -m` and setpriv');
}

let sandbox: RunningSandbox;
beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited', seed: 4 });
});

const pets = EXECUTABLE ? [EXECUTABLE] : [process.execPath, BIN];

/**
 * Runs pets in a mount namespace of its own, once `setup` (sh, as root) has prepared /mnt; as
 * the user nobody when `asNobody`.
 */
function runInNamespace(
  setup: string,
  args: string[],
  env: Record<string, string>,
  options: { asNobody?: boolean; stdin?: string } = {},
): Promise<RunResult> {
  const user = options.asNobody
    ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups']
    : [];
  return new Promise((resolve, reject) => {
    const child = spawn(
      'unshare',
      ['-m', 'sh', '-c', `${setup} && exec "$@"`, 'sh', ...user, ...pets, ...args],
      { env: { PATH: process.env.PATH, HOME: '/mnt', XDG_CACHE_HOME: '/mnt/cache', ...env } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin);
  });
}

const configJson = () =>
  JSON.stringify({
    activeProfile: 'staging',
    profiles: { staging: { baseUrl: sandbox.baseUrl, apiKey: sandbox.key } },
  });

/** One error line and its hint, naming the folder, after any warnings; and no crash. */
function expectOneClearError(result: RunResult, message: string) {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith('warning: '));
  expect(lines[0]).toBe(`error: ${message}`);
  expect(lines).toHaveLength(2); // the hint
  expect(result.stderr).not.toContain('unexpectedly');
}

describe.runIf(namespaces)('a config folder pets cannot write in', () => {
  const readOnly = () =>
    'mount -t tmpfs -o size=1m,mode=0755 tmpfs /mnt && mkdir -m 700 /mnt/config' +
    ` && printf '%s' '${configJson()}' > /mnt/config/config.json` +
    ' && chmod 600 /mnt/config/config.json && mount -o remount,ro /mnt';
  const env = { PETS_CONFIG_DIR: '/mnt/config' };
  const EROFS = 'its file system is read-only (EROFS)';

  it('read-only: every write says so in one line naming the folder, exit 1', async () => {
    // Before: "pets failed unexpectedly: EROFS … mkdir config.json.lock…".
    expectOneClearError(
      await runInNamespace(readOnly(), ['profile', 'set', 'x', '--base-url', sandbox.baseUrl], env),
      `the config folder /mnt/config cannot be written: ${EROFS}`,
    );
    expectOneClearError(
      await runInNamespace(readOnly(), ['auth', 'login', '--with-key'], env, {
        stdin: `${sandbox.key}\n`,
      }),
      `the config folder /mnt/config cannot be written: ${EROFS}`,
    );
    expectOneClearError(
      await runInNamespace(readOnly(), ['profile', 'use', 'production'], env),
      `the config folder /mnt/config cannot be written: ${EROFS}`,
    );
    // A read goes on, its rate state its own, and says why (EROFS, not ENOENT).
    const listed = await runInNamespace(readOnly(), ['list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain('/mnt/config/state (EROFS: read-only file system)');
    // A batch, which must share its state, does not start.
    const input = join(tempDir('pets-odd-input-'), 'in.ndjson');
    writeFileSync(input, '{"name":"Ro","categoryId":1}\n');
    const batch = await runInNamespace(
      readOnly(),
      ['add', '--file', input, '--yes', '--journal', `${input}.journal`],
      env,
    );
    expect(batch.code).toBe(1);
    expect(batch.stderr).toContain('/mnt/config/state (EROFS: read-only file system)');
    expect(batch.stderr).not.toContain('unexpectedly');
  });

  it('read-only, with no config folder yet: reads work, a write says why it cannot', async () => {
    const env = { PETS_CONFIG_DIR: '/mnt/new/pets' };
    const setup = 'mount -t tmpfs -o size=1m,mode=0755 tmpfs /mnt && mount -o remount,ro /mnt';
    const listed = await runInNamespace(setup, ['profile', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(2);
    expectOneClearError(
      await runInNamespace(setup, ['profile', 'set', 'x', '--base-url', sandbox.baseUrl], env),
      `the config folder /mnt/new/pets cannot be written: ${EROFS}`,
    );
  });

  it('a full disk: exit 1 naming the folder', async () => {
    const full =
      'mount -t tmpfs -o size=64k,mode=0755 tmpfs /mnt && mkdir -m 700 /mnt/config' +
      ' && { head -c 131072 /dev/zero > /mnt/filler 2>/dev/null; true; }';
    expectOneClearError(
      await runInNamespace(full, ['profile', 'set', 'x', '--base-url', sandbox.baseUrl], env),
      'the config folder /mnt/config cannot be written: the disk is full (ENOSPC)',
    );
  });

  it('a journal that cannot be written: one line naming it, and nothing sent', async () => {
    const record = `{"name":"Journaled","categoryId":1}`;
    const before = sandbox.requestLog.length;
    const readOnlyInput =
      'mount -t tmpfs -o size=1m,mode=0755 tmpfs /mnt' +
      ` && printf '%s\\n' '${record}' > /mnt/in.ndjson && mount -o remount,ro /mnt`;
    const ro = await runInNamespace(readOnlyInput, ['add', '--file', '/mnt/in.ndjson', '--yes'], {
      ...apiEnv(sandbox),
    });
    expect(ro.code, ro.stderr).toBe(2);
    expect(ro.stderr).toContain(
      'the journal /mnt/in.ndjson.pets-journal cannot be written: read-only file system (EROFS)',
    );
    expect(ro.stderr).not.toContain('unexpectedly');

    const forbiddenInput =
      'mount -t tmpfs -o size=1m,mode=0755 tmpfs /mnt && mkdir -m 755 /mnt/data' +
      ` && printf '%s\\n' '${record}' > /mnt/data/in.ndjson` +
      ` && mkdir -m 700 /mnt/config && chown ${NOBODY}:${NOBODY} /mnt/config`;
    const forbidden = await runInNamespace(
      forbiddenInput,
      ['add', '--file', '/mnt/data/in.ndjson', '--yes'],
      { PETS_CONFIG_DIR: '/mnt/config', PETS_BASE_URL: sandbox.baseUrl, PETS_API_KEY: sandbox.key },
      { asNobody: true },
    );
    expect(forbidden.code, forbidden.stderr).toBe(2);
    expect(forbidden.stderr).toContain(
      'the journal /mnt/data/in.ndjson.pets-journal cannot be written: permission denied (EACCES)',
    );
    expect(forbidden.stderr).not.toContain('unexpectedly');
    expect(sandbox.requestLog.length).toBe(before);
  });

  it('a folder its owner may not write in (EACCES), as a user who is not root', async () => {
    const locked =
      'mount -t tmpfs -o size=1m,mode=0755 tmpfs /mnt && mkdir -m 500 /mnt/config' +
      ` && chown ${NOBODY}:${NOBODY} /mnt/config`;
    expectOneClearError(
      await runInNamespace(locked, ['profile', 'set', 'x', '--base-url', sandbox.baseUrl], env, {
        asNobody: true,
      }),
      'the config folder /mnt/config cannot be written: this user may not write in it (EACCES)',
    );
    const listed = await runInNamespace(
      locked,
      ['list', '--json'],
      { ...env, PETS_BASE_URL: sandbox.baseUrl, PETS_API_KEY: sandbox.key },
      { asNobody: true },
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain('/mnt/config/state (EACCES: permission denied)');
  });
});

describe('a config folder that is not a usable absolute path', () => {
  it('HOME empty: exit 2 saying what to set, and nothing written where pets was run', async () => {
    const cwd = tempDir('pets-cwd-');
    const run = (args: string[]) =>
      spawnSync(pets[0]!, [...pets.slice(1), ...args], {
        cwd,
        env: { PATH: process.env.PATH, HOME: '' },
        encoding: 'utf8',
      });
    expect(run(['--help']).status).toBe(0);
    const listed = run(['profile', 'list']);
    expect(listed.status).toBe(2);
    expect(listed.stderr).toBe(
      'error: HOME is empty, so pets has no folder for its config and rate-limit state\n' +
        'Set HOME to an absolute path, or PETS_CONFIG_DIR to a folder for pets.\n',
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  it.each([
    ['XDG_CONFIG_HOME', (file: string) => join(file, 'pets'), 'ENOTDIR'],
    ['PETS_CONFIG_DIR', (file: string) => file, 'EEXIST'],
  ])(
    '%s naming a file: one line, exit 2, for a command that needs no config too',
    async (variable, folder, code) => {
      const file = join(tempDir('pets-file-'), 'file');
      writeFileSync(file, '');
      const env = { [variable]: file, PETS_API_KEY: sandbox.key, PETS_BASE_URL: sandbox.baseUrl };
      for (const args of [['profile', 'list'], ['list']]) {
        const run = await runBinary(args, env);
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
          `error: the config folder ${folder(file)} cannot be made: a file is in its way (${code})\n` +
            'Move the file, or set PETS_CONFIG_DIR to a folder of your own: every command keeps its rate-limit state there.\n',
        );
      }
    },
  );
});

describe('a linked or readable config folder', () => {
  it('refuses a config folder that is a symbolic link, as documented', async () => {
    const base = tempDir('pets-linked-');
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    const linked = join(base, 'linked');
    symlinkSync(real, linked);
    const before = sandbox.requestLog.length;
    for (const args of [['list'], ['auth', 'login', '--with-key']]) {
      const result = await runBinary(
        args,
        { PETS_CONFIG_DIR: linked, PETS_BASE_URL: sandbox.baseUrl, PETS_API_KEY: sandbox.key },
        `${sandbox.key}\n`,
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `the config folder ${linked} is a symbolic link, which pets does not follow`,
      );
    }
    expect(sandbox.requestLog.length).toBe(before);
    expect(existsSync(join(real, 'config.json'))).toBe(false);
  });

  it('warns of a config file others can read, and makes it 0600 on the next write', async () => {
    const dir = join(tempDir('pets-readable-'), 'config');
    mkdirSync(dir, { mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, configJson(), { mode: 0o644 });
    chmodSync(file, 0o644);
    const listed = await runBinary(['profile', 'list'], { PETS_CONFIG_DIR: dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(
      `warning: the config file ${file} can be read by other users, and it holds keys: pets sets it to 0600 when it next saves it`,
    );
    const json = await runBinary(['profile', 'list', '--json'], { PETS_CONFIG_DIR: dir });
    expect(json.stderr).toContain('"code":"config_readable"');
    expect(statSync(file).mode & 0o777).toBe(0o644);

    const set = await runBinary(['profile', 'use', 'production'], { PETS_CONFIG_DIR: dir });
    expect(set.code, set.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const after = await runBinary(['profile', 'list'], { PETS_CONFIG_DIR: dir });
    expect(after.stderr).not.toContain('can be read by other users');
  });
});

describe('a planted state folder', () => {
  /** A config folder whose state/ is what `plant` makes of it, and pets's env for it. */
  function plantedState(plant: (stateDir: string, stateFile: string) => void) {
    const env = apiEnv(sandbox);
    const stateDir = join(env.PETS_CONFIG_DIR!, 'state');
    mkdirSync(env.PETS_CONFIG_DIR!, { mode: 0o700 });
    const name = stateName(normalizedOrigin(sandbox.baseUrl), keyFingerprint(sandbox.key));
    plant(stateDir, join(stateDir, `ratelimit-${name}.json`));
    return { env, stateDir };
  }
  // What another user would write: no limit known, so send at will.
  const UNLIMITED = '{"consecutive429s":0,"unlimited":true}\n';

  async function expectRefusedUnsent(env: Record<string, string>, why: string) {
    const before = sandbox.requestLog.length;
    const result = await runBinary(['list'], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(why);
    expect(result.stderr).not.toContain('unexpectedly');
    expect(sandbox.requestLog.length).toBe(before);
  }

  it('refuses a state folder that is a link to a folder anyone can write', async () => {
    const shared = tempDir('pets-shared-state-');
    chmodSync(shared, 0o1777);
    const { env, stateDir } = plantedState((dir, file) => {
      symlinkSync(shared, dir);
      writeFileSync(file, UNLIMITED);
    });
    await expectRefusedUnsent(
      env,
      `the state folder ${stateDir} is a symbolic link, which pets does not follow`,
    );
  });

  it('refuses a state folder others can write, and a state file others can write', async () => {
    const open = plantedState((dir, file) => {
      mkdirSync(dir, { mode: 0o700 });
      chmodSync(dir, 0o777);
      writeFileSync(file, UNLIMITED);
    });
    await expectRefusedUnsent(
      open.env,
      `the state folder ${open.stateDir} can be changed by other users (mode 777)`,
    );
    let planted = '';
    const writable = plantedState((dir, file) => {
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(file, UNLIMITED);
      chmodSync(file, 0o666);
      planted = file;
    });
    await expectRefusedUnsent(
      writable.env,
      `the state file ${planted} can be changed by other users (mode 666)`,
    );
    expect(readFileSync(planted, 'utf8')).toBe(UNLIMITED);
  });

  it.runIf(isRoot)('refuses a state file that another user owns', async () => {
    let planted = '';
    const { env } = plantedState((dir, file) => {
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(file, UNLIMITED, { mode: 0o600 });
      chownSync(file, NOBODY, NOBODY);
      planted = file;
    });
    await expectRefusedUnsent(
      env,
      `the state file ${planted} belongs to another user (uid ${NOBODY})`,
    );
  });
});

describe('a key no server would read', () => {
  let small: Server;
  let smallUrl: string;
  let smallRequests = 0;
  beforeAll(async () => {
    // A server that reads headers of up to 2 KiB, as some gateways do; Node answers 431 past it.
    small = createServer({ maxHeaderSize: 2048 }, (request, response) => {
      smallRequests++;
      response.setHeader('content-type', 'application/json');
      response.end('[]');
    });
    small.on('connection', () => smallRequests++);
    await new Promise<void>((resolve) => small.listen(0, '127.0.0.1', resolve));
    smallUrl = `http://127.0.0.1:${(small.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => small.close(() => resolve())));

  function loginEnv(baseUrl: string) {
    const dir = join(tempDir('pets-key-'), 'config');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ activeProfile: 'staging', profiles: { staging: { baseUrl } } }),
      { mode: 0o600 },
    );
    return { PETS_CONFIG_DIR: dir };
  }

  it('refuses a key longer than 4096 characters before sending it, and saves nothing', async () => {
    const env = loginEnv(sandbox.baseUrl);
    const before = sandbox.requestLog.length;
    const result = await runBinary(['auth', 'login', '--with-key'], env, `${'k'.repeat(5000)}\n`);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('is 5000 characters long, longer than the 4096 pets accepts');
    expect(sandbox.requestLog.length).toBe(before);
    expect(readFileSync(join(env.PETS_CONFIG_DIR, 'config.json'), 'utf8')).not.toContain('kkkk');
  });

  it('does not save a key the server refuses as too large (431)', async () => {
    const env = loginEnv(smallUrl);
    const before = smallRequests;
    const result = await runBinary(['auth', 'login', '--with-key'], env, `${'k'.repeat(3000)}\n`);
    expect(smallRequests).toBeGreaterThan(before);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('refused the key as too large (431); it was not saved');
    expect(readFileSync(join(env.PETS_CONFIG_DIR, 'config.json'), 'utf8')).not.toContain('kkkk');
  });
});
