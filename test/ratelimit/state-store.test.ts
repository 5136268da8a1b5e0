import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fileStore } from '../../src/ratelimit/state-store.js';
import type { GateState } from '../../src/ratelimit/policy.js';
import { LONGEST_WAIT_MS } from '../../src/ratelimit/rate-headers.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { runMain } from '../helpers/run-main.js';
import { testSandbox } from '../helpers/sandbox.js';

// Real processes reserving sends in one key's state file at once: the lock and the
// read-modify-write must let them together take exactly the budget, and lose no update.

const PROCESSES = 4;
const TRIES_EACH = 120;
const BUDGET = 150;

const src = fileURLToPath(new URL('../../src/ratelimit/', import.meta.url));

/** Bundles the store and the policy into one module that plain node processes can load. */
async function bundle(dir: string): Promise<string> {
  const outfile = join(dir, 'store-bundle.mjs');
  await build({
    stdin: {
      contents:
        "export { fileStore } from './state-store.ts';\n" +
        "export { decideSend } from './policy.ts';\n",
      resolveDir: src,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

const CHILD = `
const [bundle, dir, tries] = process.argv.slice(1);
const { fileStore, decideSend } = await import(bundle);
const store = fileStore(dir, 'shared');
let went = 0;
for (let i = 0; i < Number(tries); i++) {
  const now = Date.now();
  const decision = await store.update((state) => {
    const d = decideSend(state, now, process.pid + '.' + i, now + 600000);
    return { state: d.state, result: d };
  });
  if (decision.go) went++;
}
process.stdout.write(String(went));
`;

function child(bundlePath: string, dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--input-type=module', '-e', CHILD, pathToFileURL(bundlePath).href, dir, String(TRIES_EACH)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    proc.on('error', reject);
    proc.on('close', (code) =>
      code === 0 ? resolve(Number(out)) : reject(new Error(`child exited ${code}`)),
    );
  });
}

describe('the state file, shared by real processes', () => {
  it(`${PROCESSES} processes reserving at once take exactly Remaining (${BUDGET}), and lose no reservation`, async () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    const bundlePath = await bundle(join(dir, '..'));
    const store = fileStore(dir, 'shared');
    await store.update(() => ({
      state: {
        quota: { limit: BUDGET, remaining: BUDGET, resetAtMs: Date.now() + 600_000 },
      },
      result: undefined,
    }));

    const went = await Promise.all(Array.from({ length: PROCESSES }, () => child(bundlePath, dir)));

    const total = went.reduce((sum, n) => sum + n, 0);
    expect(total).toBe(BUDGET);
    const state = store.read();
    expect(state.quota?.remaining).toBe(0);
    // Every send that went holds its claim: none was overwritten by another process's write.
    expect(Object.keys(state.inFlight ?? {})).toHaveLength(BUDGET);
    // No lock or temporary file is left behind (this process keeps its lock's folder until
    // it exits).
    const mine = `ratelimit-shared.json.lock.${process.pid}.`;
    expect(
      readdirSync(join(dir, 'state'))
        .filter((name) => !name.startsWith(mine))
        .sort(),
    ).toEqual(['ratelimit-shared.json']);
    // The file holds what the store read: the budget used up.
    const file = readFileSync(join(dir, 'state', 'ratelimit-shared.json'), 'utf8');
    expect((JSON.parse(file) as GateState).quota?.remaining).toBe(0);
  }, 60_000);
});

describe('the state file, read back', () => {
  it("keeps what processes said they have to send, the window's line and the last short process", async () => {
    const dir = tempConfigDir();
    const store = fileStore(dir, 'sharing');
    const resetAtMs = Date.now() + 60_000;
    await store.update(() => ({
      state: {
        quota: { limit: 40, remaining: 30, resetAtMs },
        demand: {
          'pid.a': { count: 27, untilMs: resetAtMs },
          'pid.b': { count: 1, untilMs: resetAtMs, short: true },
        },
        spread: { resetAtMs, fromMs: resetAtMs - 5_000, remaining: 38 },
        shortSeenAtMs: resetAtMs - 4_000,
      },
      result: undefined,
    }));
    const state = fileStore(dir, 'sharing').read();
    expect(state.demand).toEqual({
      'pid.a': { count: 27, untilMs: resetAtMs },
      'pid.b': { count: 1, untilMs: resetAtMs, short: true },
    });
    expect(state.spread).toEqual({ resetAtMs, fromMs: resetAtMs - 5_000, remaining: 38 });
    expect(state.shortSeenAtMs).toBe(resetAtMs - 4_000);
  });

  it('decodes an unchanged file once, and a file another process changed again', async () => {
    const dir = tempConfigDir();
    const mine = fileStore(dir, 'seen');
    const other = fileStore(dir, 'seen');
    const quota = (remaining: number) => ({
      state: { quota: { limit: 10, remaining, resetAtMs: 1_000 } },
      result: undefined,
    });
    await other.update(() => quota(9));
    const first = mine.read();
    expect(mine.read()).toBe(first);
    await other.update(() => quota(8));
    expect(mine.read().quota?.remaining).toBe(8);
    expect(first.quota?.remaining).toBe(9);
  });
});

describe('a state pets never wrote', () => {
  const now = Date.now();
  const good: GateState = {
    quota: { limit: 3, remaining: 0, resetAtMs: now + 60_000 },
    seenServerMs: now,
    seenAtLocalMs: now,
    ended: 3,
  };

  it.each([
    ['a floor past any plausible time', { seenServerMs: 1e300 }],
    ['a cooldown Date cannot show', { cooldownUntilMs: 1e300 }],
    ['a Date read from a server in 2200', { seenServerMs: Date.UTC(2200, 0, 1) }],
    ['a negative time', { limitSeenAtMs: -1 }],
    ['a negative count', { ended: -1 }],
    ['a count that is not whole', { quota: { limit: 3, remaining: 0.5, resetAtMs: now } }],
    ['a time of another type', { cooldownUntilMs: '1e300' }],
    ['one malformed claim', { inFlight: { a: { untilMs: now, ended: 1 }, b: { untilMs: 'x' } } }],
  ])('%s sets the whole state aside, and is said once', async (_, bad) => {
    const dir = tempConfigDir();
    const warnings: string[] = [];
    const store = fileStore(dir, 'bad', (line) => warnings.push(line));
    await store.update(() => ({ state: good, result: undefined }));
    writeFileSync(store.place!, JSON.stringify({ ...good, ...bad }));
    expect(store.read()).toEqual({});
    expect(store.read()).toEqual({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the rate-limit state .*ratelimit-bad\.json was set aside \(\w+ /);
    // The next change starts from nothing, and writes a state pets can read.
    await store.update((state) => ({ state: { ...state, ended: 1 }, result: undefined }));
    expect(fileStore(dir, 'bad').read()).toEqual({ ended: 1 });
  });

  it('keeps a cooldown a century long: pets keeps a Retry-After up to one', async () => {
    const store = fileStore(tempConfigDir(), 'century');
    const cooldownUntilMs = now + LONGEST_WAIT_MS;
    await store.update(() => ({ state: { ...good, cooldownUntilMs }, result: undefined }));
    expect(fileStore(dirname(store.folder!), 'century').read().cooldownUntilMs).toBe(
      cooldownUntilMs,
    );
  });

  it('not JSON at all: set aside, and said', () => {
    const dir = tempConfigDir();
    const warnings: string[] = [];
    const store = fileStore(dir, 'garbage', (line) => warnings.push(line));
    mkdirSync(join(dir, 'state'), { recursive: true });
    writeFileSync(store.place!, '{"quota":');
    expect(store.read()).toEqual({});
    expect(warnings).toEqual([expect.stringContaining('(not JSON, a value pets never writes)')]);
  });

  it.each([
    ['seenServerMs', 'no request goes into the spent window'],
    ['cooldownUntilMs', 'no command fails unexpectedly'],
  ])('a spent window with %s 1e300: pets says so once, and %s', async (field) => {
    const sandbox = await testSandbox({ plan: 'free', rpm: 2 });
    const env = apiEnv(sandbox);
    for (let i = 0; i < 2; i++) expect((await runMain(['list'], env)).code).toBe(0);
    const dir = join(env.PETS_CONFIG_DIR!, 'state');
    const file = join(
      dir,
      readdirSync(dir).find((name) => name.endsWith('.json'))!,
    );
    const state = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...state, [field]: 1e300 }));
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await runMain(['list', '--max-wait', '0'], env));
    for (const run of runs) {
      expect(run.code).toBe(5);
      expect(run.stderr).not.toMatch(/unexpectedly/);
    }
    expect(runs.map((run) => run.stderr.match(/set aside/g)?.length ?? 0)).toEqual([1, 0, 0]);
    // Knowing nothing, the first run sends one request to learn the window; its 429 is
    // then known to every later run.
    const refused = sandbox.requestLog.filter((request) => request.status === 429);
    expect(refused).toHaveLength(1);
  });
});
