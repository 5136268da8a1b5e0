import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { runBinary } from '../helpers/run-binary.js';

// On Node 22 and later, Node keeps the cache itself, in its own layout.
const ownCache = !('enableCompileCache' in Module);

function cacheEnv() {
  const cacheHome = mkdtempSync(join(tmpdir(), 'pets-cache-'));
  afterEach(() => rmSync(cacheHome, { recursive: true, force: true }));
  const dir = join(cacheHome, 'pets', `compile-${process.version}-${process.arch}`);
  return { dir, env: { XDG_CACHE_HOME: cacheHome, PETS_CONFIG_DIR: tempConfigDir() } };
}

const mtimes = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mtimeMs]));

describe.runIf(ownCache)('the compile cache', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ plan: 'unlimited' });
  });
  afterAll(() => sandbox.close());

  it('keeps compiled code between runs, readable by the user alone, and reuses it', async () => {
    const { dir, env } = cacheEnv();
    const first = await runBinary(['--help'], env);
    expect(first.code).toBe(0);
    const entries = readdirSync(dir);
    expect(entries).toEqual([
      expect.stringMatching(/^cli-stack\.js-[0-9a-f]{8}-\d+-\d+-pets-help$/),
    ]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of entries) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);

    const written = mtimes(dir);
    const second = await runBinary(['--help'], env);
    expect(second).toEqual(first);
    expect(mtimes(dir)).toEqual(written);
  });

  it('keeps what an API command compiled: the flags it sets come before any compiling', async () => {
    const { dir, env } = cacheEnv();
    const api = { ...env, PETS_BASE_URL: sandbox.baseUrl, PETS_API_KEY: sandbox.key };
    const first = await runBinary(['list', '--json'], api);
    expect(first).toMatchObject({ code: 0, stdout: '[]\n' });
    const written = mtimes(dir);

    const second = await runBinary(['list', '--json'], api);
    expect(second).toEqual(first);
    // V8 refuses code cached under other flags, and pets writes anew what it refused.
    expect(mtimes(dir)).toEqual(written);
  });

  it('has entries for each kind of run, since each compiles other functions', async () => {
    const { dir, env } = cacheEnv();
    await runBinary(['--help'], env);
    await runBinary(['profile', 'list'], env);
    await runBinary(['list', '--json'], {
      ...env,
      PETS_BASE_URL: sandbox.baseUrl,
      PETS_API_KEY: sandbox.key,
    });
    const kinds = readdirSync(dir).map((name) => name.replace(/-[0-9a-f]{8}-\d+-\d+-/, ' '));
    expect(kinds.sort()).toEqual([
      'cli-stack.js list',
      'cli-stack.js pets-help',
      'cli-stack.js profile',
      'undici.js list',
    ]);
  });

  it('removes the entries of an older build of a file when it caches the new one', async () => {
    const { dir, env } = cacheEnv();
    await runBinary(['--help'], env);
    const [current] = readdirSync(dir);
    const [, file, hash] = /^(.+\.js)-([0-9a-f]{8})-/.exec(current!)!;
    const older = `${file}-${hash}-1-2-list`;
    const otherInstall = `${file}-${hash === '00000000' ? '00000001' : '00000000'}-1-2-list`;
    const otherFile = `undici.js-${hash}-1-2-list`;
    for (const name of [older, otherInstall, otherFile]) writeFileSync(join(dir, name), '');
    rmSync(join(dir, current!));

    await runBinary(['--help'], env);
    expect(readdirSync(dir).sort()).toEqual([current, otherInstall, otherFile].sort());
  });

  it('replaces an entry V8 refuses, and the run goes on as if there were none', async () => {
    const { dir, env } = cacheEnv();
    const first = await runBinary(['--help'], env);
    const [victim] = readdirSync(dir);
    const garbage = Buffer.alloc(statSync(join(dir, victim!)).size, 0x5a);
    writeFileSync(join(dir, victim!), garbage);

    const second = await runBinary(['--help'], env);
    expect(second).toEqual(first);
    expect(readFileSync(join(dir, victim!)).equals(garbage)).toBe(false);
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE, as in Node 22', async () => {
    const { dir, env } = cacheEnv();
    const run = await runBinary(['--help'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(run.code).toBe(0);
    expect(() => readdirSync(dir)).toThrow(/ENOENT/);
  });
});
