import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/config-dir.js';
import { EXECUTABLE } from '../helpers/run-binary.js';

// The single executable (`npm run package`, dist/pets-linux-x64), as a machine with no Node
// runs it: copied alone into an empty folder, with a PATH that holds no node. .ci/run builds it
// and sets PETS_TEST_EXECUTABLE; npm test alone skips these.

if (!EXECUTABLE) console.warn('PETS_TEST_EXECUTABLE is not set: the executable tests are skipped');

let dir: string;
let exe: string;
let env: NodeJS.ProcessEnv;
let stopSandbox: (() => Promise<number | null>) | undefined;

function pets(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return spawnSync(exe, args, {
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    cwd: dir,
    timeout: 30_000,
  });
}

describe.skipIf(!EXECUTABLE)('the single executable, alone, on a machine with no Node', () => {
  beforeAll(() => {
    dir = tempDir('pets-executable-');
    exe = join(dir, 'pets');
    copyFileSync(EXECUTABLE!, exe);
    const emptyBin = join(dir, 'bin');
    env = {
      PATH: emptyBin, // no node, no npm: nothing but the executable
      HOME: dir,
      PETS_CONFIG_DIR: join(dir, 'config'),
      XDG_CACHE_HOME: join(dir, 'cache'),
    };
  });
  afterAll(async () => {
    await stopSandbox?.();
  });

  it('is one file, and finds no node on its PATH', () => {
    expect(readdirSync(dir)).toEqual(['pets']); // no dist/ beside it
    expect(spawnSync('node', ['--version'], { env }).error).toMatchObject({ code: 'ENOENT' });
  });

  it('prints its version and its help topics, and is not refused as an old Node', () => {
    const version = pets(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const topic = pets(['help', 'exit-codes']);
    expect(topic.status).toBe(0);
    expect(topic.stdout).toContain('130');
  });

  it('runs no code that NODE_OPTIONS names, and opens no inspector for it', () => {
    const evil = join(dir, 'evil.cjs');
    const marker = join(dir, 'evil-ran');
    writeFileSync(evil, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');`);
    const required = pets(['--version'], { NODE_OPTIONS: `--require ${evil}` });
    expect(required.status, required.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const imported = pets(['help', 'exit-codes'], { NODE_OPTIONS: `--import ${evil}` });
    expect(imported.status, imported.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);

    const inspected = pets(['help', 'exit-codes'], {
      NODE_OPTIONS: '--inspect=127.0.0.1:0 --inspect-brk=127.0.0.1:0',
    });
    expect(inspected.status, inspected.stderr).toBe(0);
    expect(inspected.stderr).not.toMatch(/Debugger listening|ws:\/\//);
  });

  it('keeps compiled code in the compile cache, as the npm install does', () => {
    expect(pets(['--help']).status).toBe(0);
    const cache = join(dir, 'cache', 'pets');
    const entries = readdirSync(cache).flatMap((folder) => readdirSync(join(cache, folder)));
    expect(entries.some((name) => name.startsWith('cli-stack.js-'))).toBe(true);
  });

  it("starts a sandbox and talks to it, with the WebAssembly of undici's parser and of jq embedded in it", async () => {
    const child = spawn(exe, ['sandbox', '--json', '--seed', '2'], {
      env,
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stopSandbox = () =>
      new Promise((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGINT');
      });
    const firstLine = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.on('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
    });
    expect(JSON.parse(firstLine)).toMatchObject({ profile: 'sandbox' });
    // SIGUSR1 starts Node's inspector in a running node; not in pets.
    let sandboxStderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (sandboxStderr += text));
    child.kill('SIGUSR1');

    const listed = pets(['--profile', 'sandbox', 'list', '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(2);

    const csv = join(dir, 'pets.csv');
    writeFileSync(csv, 'name,categoryId,status\nRex,1,available\nLuna,2,pending\n');
    const added = pets(['--profile', 'sandbox', 'add', '--file', csv]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stderr).toContain('created 2');

    const after = pets(['--profile', 'sandbox', 'list', '--json']);
    expect(JSON.parse(after.stdout)).toHaveLength(4);

    // jq, from the WebAssembly it carries too.
    const filtered = pets([
      '--profile',
      'sandbox',
      'list',
      '--jq',
      '.[] | select(.name == "Luna") | .status',
    ]);
    expect(filtered.status, filtered.stderr).toBe(0);
    expect(filtered.stdout).toBe('pending\n');

    const stop = stopSandbox;
    stopSandbox = undefined;
    expect(await stop()).toBe(0);
    expect(sandboxStderr).not.toMatch(/Debugger listening|ws:\/\//);
  });
});
