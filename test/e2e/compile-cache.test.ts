import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { removeAfterTest, tempConfigDir, tempDir } from '../helpers/config-dir.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { testSandbox } from '../helpers/sandbox.js';

function cacheEnv() {
  const cacheHome = tempDir('pets-cache-');
  removeAfterTest(cacheHome);
  const dir = join(cacheHome, 'pets', `compile-${process.version}-${process.arch}`);
  return { dir, env: { XDG_CACHE_HOME: cacheHome, PETS_CONFIG_DIR: tempConfigDir() } };
}

const CLI_STACK = join(BIN, '../../dist/runtime/cli-stack.js');
const isRoot = process.getuid?.() === 0;

/**
 * Cached data for code of the same length as cli-stack.js that prints PLANTED: V8 checks only
 * a source's length, so it runs in place of pets when the cache hands it over.
 */
function plantedEntry(): Buffer {
  const real = Module.wrap(readFileSync(CLI_STACK, 'utf8'));
  const evil =
    "(function(){process.getBuiltinModule('node:fs').writeSync(1,'PLANTED\\n');process.exit(0)})";
  const source = evil + ' '.repeat(real.length - evil.length);
  // Made by the Node that runs pets, with no V8 flags, as pets runs.
  const make =
    "const {Script}=require('node:vm');const source=require('node:fs').readFileSync(0,'utf8');" +
    'process.stdout.write(new Script(source,{filename:process.argv[1]}).createCachedData().toString("base64"))';
  return Buffer.from(
    execFileSync(process.execPath, ['-e', make, CLI_STACK], {
      input: source,
      encoding: 'utf8',
    }),
    'base64',
  );
}

const mtimes = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mtimeMs]));

describe('the compile cache', () => {
  let sandbox: RunningSandbox;
  beforeEach(async () => {
    sandbox = await testSandbox({ plan: 'unlimited' });
  });

  it('keeps compiled code between runs, readable by the user alone, and reuses it', async () => {
    const { dir, env } = cacheEnv();
    const first = await runBinary(['--help'], env);
    expect(first.code).toBe(0);
    const entries = readdirSync(dir);
    expect(entries).toEqual([
      expect.stringMatching(/^cli-stack\.js-[0-9a-f]{8}-[0-9a-f]{16}-pets-help$/),
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

  it('keeps what a run with a profile named like a command compiled', async () => {
    // `pets sandbox` saves a profile named sandbox: `--profile sandbox list` is a list run.
    const { dir, env } = cacheEnv();
    const api = { ...env, PETS_API_KEY: sandbox.key };
    const set = await runBinary(['profile', 'set', 'sandbox', '--base-url', sandbox.baseUrl], api);
    expect(set.code).toBe(0);
    const list = ['--profile', 'sandbox', 'list', '--json'];
    const first = await runBinary(list, api);
    expect(first).toMatchObject({ code: 0, stdout: '[]\n' });
    const written = mtimes(dir);
    expect(Object.keys(written)).toContainEqual(expect.stringMatching(/^undici\.js-.*-list$/));

    const second = await runBinary(list, api);
    expect(second).toEqual(first);
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
    const kinds = readdirSync(dir).map((name) => name.replace(/-[0-9a-f]{8}-[0-9a-f]{16}-/, ' '));
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
    const [, file, place, build] = /^(.+\.js)-([0-9a-f]{8})-([0-9a-f]{16})-/.exec(current!)!;
    const otherBuild = build === '0'.repeat(16) ? '1'.repeat(16) : '0'.repeat(16);
    const older = `${file}-${place}-${otherBuild}-list`;
    const otherInstall = `${file}-${place === '00000000' ? '00000001' : '00000000'}-${otherBuild}-list`;
    const otherFile = `undici.js-${place}-${otherBuild}-list`;
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

  it("is off with NODE_DISABLE_COMPILE_CACHE, as Node's is", async () => {
    const { dir, env } = cacheEnv();
    const run = await runBinary(['--help'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(run.code).toBe(0);
    expect(() => readdirSync(dir)).toThrow(/ENOENT/);
  });

  describe('never runs code another user could have planted', () => {
    /** Runs --help once, then puts the planted entry where the cache looks for cli-stack.js. */
    async function plant() {
      const { dir, env } = cacheEnv();
      const honest = await runBinary(['--help'], env);
      const [entry] = readdirSync(dir);
      writeFileSync(join(dir, entry!), plantedEntry(), { mode: 0o600 });
      return { dir, env, entry: join(dir, entry!), honest };
    }

    it("(the planted entry is code V8 would run, were it the user's own)", async () => {
      const { env } = await plant();
      expect((await runBinary(['--help'], env)).stdout).toBe('PLANTED\n');
    });

    it('refuses a cache folder that others can write', async () => {
      const { dir, env, honest } = await plant();
      chmodSync(dir, 0o777);
      expect(await runBinary(['--help'], env)).toEqual(honest);
    });

    it('refuses an entry that others can write', async () => {
      const { env, entry, honest } = await plant();
      chmodSync(entry, 0o666);
      expect(await runBinary(['--help'], env)).toEqual(honest);
    });

    it.runIf(isRoot)('refuses a folder or an entry owned by another user', async () => {
      const { dir, env, entry, honest } = await plant();
      chownSync(entry, 65534, 65534);
      expect(await runBinary(['--help'], env)).toEqual(honest);
      chownSync(entry, 0, 0);
      chownSync(dir, 65534, 65534);
      expect(await runBinary(['--help'], env)).toEqual(honest);
    });

    it('refuses an entry that is a link', async () => {
      const { dir, env, entry, honest } = await plant();
      const elsewhere = join(dir, '..', 'elsewhere');
      writeFileSync(elsewhere, readFileSync(entry), { mode: 0o600 });
      rmSync(entry);
      execFileSync('ln', ['-s', elsewhere, entry]);
      expect(await runBinary(['--help'], env)).toEqual(honest);
    });

    it('makes a missing cache folder 0700', async () => {
      const { dir, env } = cacheEnv();
      mkdirSync(join(dir, '..', '..'), { recursive: true });
      await runBinary(['--help'], env);
      expect(statSync(join(dir, '..')).mode & 0o777).toBe(0o700);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    });
  });
});
