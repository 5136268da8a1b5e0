import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { tempConfigDir } from '../../helpers/config-dir.js';
import { runMain } from '../../helpers/run-main.js';
import { testSandbox } from '../../helpers/sandbox.js';

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited', key: 'sandbox_profile_tests_key_0042' });
  dir = tempConfigDir();
  env = { PETS_CONFIG_DIR: dir };
});

const run = (args: string[], extraEnv: Record<string, string> = {}, stdin?: string) =>
  runMain(args, { ...env, ...extraEnv }, { stdin });

describe('profiles', () => {
  it('lists production and staging from the start, production active', async () => {
    const result = await run(['profile', 'list', '--json']);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        name: 'production',
        active: true,
        activeSource: 'config',
        baseUrl: null,
        baseUrlSource: null,
        key: '(none)',
        keySource: null,
        protected: true,
        rateStore: null,
        rateStoreSource: null,
      },
      {
        name: 'staging',
        active: false,
        activeSource: null,
        baseUrl: null,
        baseUrlSource: null,
        key: '(none)',
        keySource: null,
        protected: false,
        rateStore: null,
        rateStoreSource: null,
      },
    ]);
  });

  it('sets, uses, shows and removes a profile', async () => {
    expect((await run(['profile', 'set', 'local', '--base-url', `${sandbox.baseUrl}/`])).code).toBe(
      0,
    );
    const used = await run(['profile', 'use', 'local']);
    expect(used.stderr).toContain('Now using profile "local"');
    const shown = JSON.parse((await run(['profile', 'show', '--json'])).stdout);
    expect(shown).toEqual({
      name: 'local',
      active: true,
      activeSource: 'config',
      baseUrl: sandbox.baseUrl,
      baseUrlSource: 'config',
      key: '(none)',
      keySource: null,
      protected: false,
      rateStore: null,
      rateStoreSource: null,
    });
    const removed = await run(['profile', 'remove', 'local']);
    expect(removed.stderr).toContain('The active profile is now "production"');
    expect((await run(['profile', 'show', 'local'])).code).toBe(2);
  });

  it('refuses a rate store password on the command line, and takes it from stdin', async () => {
    const url = 'redis://ci:s3cret-pass@10.0.0.9:6380/2';
    const refused = await run(['profile', 'set', 'staging', '--rate-store', url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'error: --rate-store holds a password, which the command line would leave in the shell history and the process list; nothing was saved',
    );
    expect(refused.stderr).toContain('--rate-store - < store-url.txt');
    expect(refused.stderr).not.toContain('s3cret-pass');
    const before = JSON.parse((await run(['profile', 'show', 'staging', '--json'])).stdout);
    expect(before.rateStore).toBeNull();
    const piped = await run(['profile', 'set', 'staging', '--rate-store', '-'], {}, `${url}\n`);
    expect(piped.code).toBe(0);
    expect(piped.stdout + piped.stderr).not.toContain('s3cret-pass');
    const shown = JSON.parse((await run(['profile', 'show', 'staging', '--json'])).stdout);
    expect(shown).toMatchObject({ rateStore: 'redis://ci@10.0.0.9:6380/2' });
    // Without a password the URL may go on the command line, as before.
    const plain = 'redis://10.0.0.9:6380/2';
    expect((await run(['profile', 'set', 'staging', '--rate-store', plain])).code).toBe(0);
  });

  it('shows the rate store without its password, however short, and where it came from', async () => {
    const url = 'redis://ci:pw@10.0.0.9:6380/2';
    expect((await run(['profile', 'set', 'staging', '--rate-store', '-'], {}, url)).code).toBe(0);
    const shown = await run(['profile', 'show', 'staging']);
    expect(shown.stdout.split('\n')[1]!.split('\t').at(-1)).toBe('redis://ci@10.0.0.9:6380/2');
    const json = JSON.parse((await run(['profile', 'show', 'staging', '--json'])).stdout);
    expect(json).toMatchObject({
      rateStore: 'redis://ci@10.0.0.9:6380/2',
      rateStoreSource: 'config',
    });
    const fromEnv = await run(['profile', 'show', 'staging'], {
      PETS_RATE_STORE: 'rediss://:x1@store.internal:6379',
    });
    // TSV keeps the bare value; --json says where it came from.
    expect(fromEnv.stdout).toContain('\trediss://store.internal:6379\n');
    for (const result of [shown, fromEnv]) {
      expect(result.stdout + result.stderr).not.toMatch(/:pw@|:x1@/);
    }
    const none = JSON.parse((await run(['profile', 'show', 'production', '--json'])).stdout);
    expect(none).toMatchObject({ rateStore: null, rateStoreSource: null });
  });

  it('clears production instead of removing it', async () => {
    await run(['profile', 'set', 'production', '--base-url', 'https://api.example.com/v1']);
    const result = await run(['profile', 'remove', 'production', '--yes']);
    expect(result.stderr).toContain('always exists');
    const shown = JSON.parse((await run(['profile', 'show', 'production', '--json'])).stdout);
    expect(shown.baseUrl).toBeNull();
  });

  it.each([
    [['profile', 'set', 'prod', '--base-url', 'http://api.example.com/v1'], /loopback/],
    [
      ['profile', 'set', 'bad.name', '--base-url', 'https://a.example/v1'],
      /not a valid profile name/,
    ],
    [['profile', 'use', 'nowhere'], /no profile named "nowhere"/],
    [['--profile', 'nowhere', 'list'], /no profile named "nowhere" \(from --profile\)/],
  ])('refuses %j with exit 2', async (args, why) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(why);
  });

  it('says exactly which command sets up a profile with no base URL', async () => {
    const result = await run(['list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('profile "production" has no base URL');
    expect(result.stderr).toContain('pets profile set production --base-url');
  });

  it('chooses the profile by --profile, then PETS_PROFILE, then the active one', async () => {
    await run(['profile', 'set', 'one', '--base-url', 'https://one.example.com/v1']);
    await run(['profile', 'set', 'two', '--base-url', 'https://two.example.com/v1']);
    await run(['profile', 'use', 'one']);
    const show = async (args: string[], extra = {}) =>
      JSON.parse((await run([...args, '--json'], extra)).stdout).name;
    expect(await show(['profile', 'show'])).toBe('one');
    expect(await show(['profile', 'show'], { PETS_PROFILE: 'two' })).toBe('two');
    expect(await show(['--profile', 'staging', 'profile', 'show'], { PETS_PROFILE: 'two' })).toBe(
      'staging',
    );
  });

  it('lets PETS_BASE_URL override the profile, and checks it too', async () => {
    await run(['profile', 'set', 'production', '--base-url', 'https://unreachable.invalid/v1']);
    const ok = await run(['list', '--json'], {
      PETS_BASE_URL: sandbox.baseUrl,
      PETS_API_KEY: sandbox.key,
    });
    expect(ok.code).toBe(0);
    const bad = await run(['list'], { PETS_BASE_URL: 'http://example.com/v1', PETS_API_KEY: 'x' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PETS_BASE_URL');
  });
});

describe('auth', () => {
  beforeEach(async () => {
    await run(['profile', 'set', 'production', '--base-url', sandbox.baseUrl]);
  });

  it('stores a key from stdin with --with-key, shows only its last 4 characters, and uses it', async () => {
    const login = await run(['auth', 'login', '--with-key'], {}, `${sandbox.key}\n`);
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('****0042');
    expect(login.stderr).not.toContain(sandbox.key);
    const config = join(dir, 'config.json');
    expect(readFileSync(config, 'utf8')).toContain(sandbox.key);
    expect(statSync(config).mode & 0o777).toBe(0o600);

    const status = await run(['auth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/key\s+\*\*\*\*0042 \(from the config\)/);
    expect(status.stdout).toMatch(/valid\s+yes/);
    expect(status.stdout + status.stderr).not.toContain(sandbox.key);

    const shown = await run(['profile', 'show']);
    expect(shown.stdout).toContain('****0042');
    expect(shown.stdout).not.toContain(sandbox.key);
  });

  it('login checks the key with one request: a refused one is not saved, exit 4', async () => {
    const before = sandbox.requestLog.length;
    const login = await run(['auth', 'login', '--with-key'], {}, 'not_the_right_key_9999\n');
    expect(login.code).toBe(4);
    expect(login.stderr).toContain(
      `${new URL(sandbox.baseUrl).host} refused the key (401); it was not saved`,
    );
    expect(login.stderr).not.toContain('Saved the key');
    expect(login.stderr).not.toContain('not_the_right_key_9999');
    expect(sandbox.requestLog.length).toBe(before + 1);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain('not_the_right_key');
  });

  it('login saves a key it could not check (no server), with a warning saying so', async () => {
    await run(['profile', 'set', 'production', '--base-url', 'http://127.0.0.1:9/v1']);
    const login = await run(['auth', 'login', '--with-key'], {}, 'unchecked_key_value_3333\n');
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('Saved the key ****3333 for profile "production"');
    expect(login.stderr).toMatch(/warning: the key was not checked: .*127\.0\.0\.1:9/);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain('unchecked_key_value_3333');
  });

  it('status with a refused key shows the profile, address and key, then exit 4', async () => {
    // Saved while the server could not check it, then refused once it can.
    await run(['profile', 'set', 'production', '--base-url', 'http://127.0.0.1:9/v1']);
    await run(['auth', 'login', '--with-key'], {}, 'not_the_right_key_9999\n');
    await run(['profile', 'set', 'production', '--base-url', sandbox.baseUrl]);
    const status = await run(['auth', 'status']);
    expect(status.code).toBe(4);
    expect(status.stdout).toMatch(/profile\s+production \(from the config\)/);
    expect(status.stdout).toContain(`${sandbox.baseUrl} (from the config)`);
    expect(status.stdout).toMatch(/key\s+\*\*\*\*9999 \(from the config\)/);
    expect(status.stdout).toMatch(/valid\s+no/);
    expect(status.stderr).toContain('profile "production"');
    expect(status.stderr).toContain('pets auth login --profile production');
    expect(status.stdout + status.stderr).not.toContain('not_the_right_key_9999');
    const json = await run(['auth', 'status', '--json']);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ profile: 'production', valid: false });
  });

  it('exits 4 when there is no key at all', async () => {
    const result = await run(['list']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('no API key for profile "production"');
  });

  it('prefers PETS_API_KEY over the stored key, and says so', async () => {
    await run(
      ['auth', 'login', '--with-key'],
      { PETS_BASE_URL: 'http://127.0.0.1:9/v1' },
      'stored_but_wrong_key_1111\n',
    );
    const status = await run(['auth', 'status', '--json'], { PETS_API_KEY: sandbox.key });
    expect(JSON.parse(status.stdout)).toMatchObject({
      keySource: 'environment',
      key: '****0042',
      valid: true,
    });
  });

  it('refuses an empty key and a prompt without a terminal', async () => {
    expect((await run(['auth', 'login', '--with-key'], {}, '\n')).code).toBe(2);
    const noTty = await run(['auth', 'login']);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('--with-key');
  });

  it('removes the key on logout', async () => {
    await run(['auth', 'login', '--with-key'], {}, `${sandbox.key}\n`);
    expect((await run(['auth', 'logout'])).stderr).toContain(
      'Removed the key of profile "production"',
    );
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(sandbox.key);
    expect((await run(['list'])).code).toBe(4);
  });

  it('has no way to take a key from argv', async () => {
    for (const flag of ['--key', '--api-key', '--token']) {
      const result = await run(['auth', 'login', flag, 'sk_live_argv_key']);
      expect(result.code).toBe(2);
      expect(result.stderr).not.toContain('sk_live_argv_key');
    }
  });
});

describe("profile names that are Object's own", () => {
  it('a hand-edited profile "__proto__" is listed, shown, used and kept by the next write', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const profiles = JSON.parse('{"__proto__":{"baseUrl":"BASE","apiKey":"KEY"}}');
    profiles.__proto__.baseUrl = sandbox.baseUrl;
    profiles.__proto__.apiKey = sandbox.key;
    const text = JSON.stringify({ activeProfile: '__proto__', profiles });
    writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
    const listed = JSON.parse((await run(['profile', 'list', '--json'])).stdout);
    expect(listed.map((p: { name: string }) => p.name)).toEqual([
      '__proto__',
      'production',
      'staging',
    ]);
    expect((await run(['profile', 'show', '__proto__', '--json'])).code).toBe(0);
    expect((await run(['list'])).code).toBe(0);
    await run(['profile', 'set', 'other', '--base-url', 'https://other.example.com/v1']);
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(Object.keys(saved.profiles)).toContain('__proto__');
    expect(Object.getOwnPropertyDescriptor(saved.profiles, '__proto__')?.value.apiKey).toBe(
      sandbox.key,
    );
  });

  it.each(['toString', 'constructor', 'valueOf', 'hasOwnProperty'])(
    '"%s" is no profile: logout and remove refuse it, and nothing is added',
    async (name) => {
      await run(['profile', 'set', 'dev', '--base-url', 'https://dev.example.com/v1']);
      const before = readFileSync(join(dir, 'config.json'), 'utf8');
      for (const args of [
        ['auth', 'logout', '--profile', name],
        ['profile', 'remove', name, '--yes'],
        ['profile', 'use', name],
        ['profile', 'show', name],
      ]) {
        const result = await run(args);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toMatch(new RegExp(`^error: there is no profile named "${name}"`));
      }
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    },
  );

  it('a mistyped profile gets "did you mean", and no hint to create the typo', async () => {
    const result = await run(['--profile', 'stagign', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: there is no profile named "stagign" (from --profile); did you mean "staging"?\n' +
        'See `pets profile list`.\n',
    );
    const far = await run(['profile', 'use', 'qa']);
    expect(far.stderr).toBe(
      'error: there is no profile named "qa"\n' +
        'See `pets profile list`, or make it: pets profile set qa --base-url <url>\n',
    );
  });
});
