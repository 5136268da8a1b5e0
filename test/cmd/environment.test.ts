import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { scriptedPrompter } from '../helpers/prompter.js';
import { runMain } from '../helpers/run-main.js';
import { testSandbox } from '../helpers/sandbox.js';

// Which profile, address and key a command uses, where each comes from, and how a person at a
// terminal sees it.

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;
const OTHER_KEY = 'staging_key_value_for_tests_7777';

beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited', key: 'environment_tests_key_0042' });
  dir = tempConfigDir();
  env = { PETS_CONFIG_DIR: dir };
  await run(['profile', 'set', 'production', '--base-url', sandbox.baseUrl]);
  await run(['auth', 'login', '--with-key'], {}, { stdin: `${sandbox.key}\n` });
  await run(['profile', 'set', 'staging', '--base-url', 'https://staging.example.com/v1']);
  await run(
    ['auth', 'login', '--with-key', '--profile', 'staging'],
    {},
    { stdin: `${OTHER_KEY}\n` },
  );
});

const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

const run = (
  args: string[],
  extraEnv: Record<string, string> = {},
  io: Parameters<typeof runMain>[2] = {},
) => runMain(args, { ...env, ...extraEnv }, io);

describe('profile use under an overriding environment', () => {
  it('warns that PETS_PROFILE overrides it, naming the variable and the profile in use', async () => {
    const used = await run(['profile', 'use', 'staging'], { PETS_PROFILE: 'production' });
    expect(used.code).toBe(0);
    expect(used.stderr).toContain('Now using profile "staging"');
    expect(used.stderr).toMatch(
      /warning: PETS_PROFILE=production overrides the active profile "staging": commands use "production"/,
    );
    const listed = JSON.parse(
      (await run(['profile', 'list', '--json'], { PETS_PROFILE: 'production' })).stdout,
    );
    expect(listed.find((p: { active: boolean }) => p.active).name).toBe('production');
  });

  it('warns about PETS_BASE_URL and PETS_API_KEY, and says nothing when nothing overrides', async () => {
    const used = await run(['profile', 'use', 'staging'], {
      PETS_BASE_URL: sandbox.baseUrl,
      PETS_API_KEY: sandbox.key,
    });
    expect(used.stderr).toContain("warning: PETS_BASE_URL is set and overrides every profile's");
    expect(used.stderr).toContain("warning: PETS_API_KEY is set and overrides every profile's");
    const plain = await run(['profile', 'use', 'staging']);
    expect(plain.stderr).not.toContain('warning');
    const quiet = await run(['profile', 'use', 'staging', '-q'], { PETS_PROFILE: 'production' });
    expect(quiet.stderr).toBe('');
  });

  it('auth login warns that PETS_API_KEY overrides the key it saved', async () => {
    const login = await run(
      ['auth', 'login', '--with-key'],
      { PETS_API_KEY: 'x'.repeat(20) },
      { stdin: `${sandbox.key}\n` },
    );
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('warning: PETS_API_KEY is set and overrides the saved key');
  });

  it('colours warning: as error: is coloured, on a terminal', async () => {
    const used = await run(
      ['profile', 'use', 'staging'],
      { PETS_PROFILE: 'production' },
      { stderrIsTTY: true },
    );
    expect(used.stderr).toContain('\u001b[33mwarning:\u001b[39m');
  });
});

describe('profile list, profile show and auth status show what is in use and why', () => {
  it('marks the profile PETS_PROFILE chose, with the sources in JSON', async () => {
    const listed = JSON.parse(
      (await run(['profile', 'list', '--json'], { PETS_PROFILE: 'staging' })).stdout,
    );
    expect(listed).toEqual([
      {
        name: 'production',
        active: false,
        activeSource: null,
        baseUrl: sandbox.baseUrl,
        baseUrlSource: 'config',
        key: '****0042',
        keySource: 'config',
        protected: true,
        rateStore: null,
        rateStoreSource: null,
      },
      {
        name: 'staging',
        active: true,
        activeSource: 'environment',
        baseUrl: 'https://staging.example.com/v1',
        baseUrlSource: 'config',
        key: '****7777',
        keySource: 'config',
        protected: false,
        rateStore: null,
        rateStoreSource: null,
      },
    ]);
  });

  it('shows PETS_BASE_URL and PETS_API_KEY as what is used, naming them, never the whole key', async () => {
    const overrides = {
      PETS_BASE_URL: 'http://127.0.0.1:9/v1',
      PETS_API_KEY: 'env_key_abcdefgh_9999',
    };
    const shown = await run(['profile', 'show'], overrides, { stdoutIsTTY: true });
    expect(plain(shown.stdout)).toMatch(/in use\s+yes \(from the config\)/);
    expect(plain(shown.stdout)).toMatch(
      /base url\s+http:\/\/127\.0\.0\.1:9\/v1 \(from PETS_BASE_URL\)/,
    );
    expect(plain(shown.stdout)).toMatch(/key\s+\*\*\*\*9999 \(from PETS_API_KEY\)/);
    expect(shown.stdout + shown.stderr).not.toContain('env_key_abcdefgh_9999');
    const json = JSON.parse((await run(['profile', 'show', '--json'], overrides)).stdout);
    expect(json).toMatchObject({
      baseUrl: 'http://127.0.0.1:9/v1',
      baseUrlSource: 'environment',
      key: '****9999',
      keySource: 'environment',
    });
    const table = await run(['profile', 'list'], overrides, { stdoutIsTTY: true });
    expect(plain(table.stdout)).toContain('http://127.0.0.1:9/v1 (PETS_BASE_URL)');
    expect(plain(table.stdout)).toContain('****9999 (PETS_API_KEY)');
  });

  it('names --profile as the source when the flag chose', async () => {
    const shown = await run(
      ['--profile', 'staging', 'profile', 'show'],
      { PETS_PROFILE: 'production' },
      {
        stdoutIsTTY: true,
      },
    );
    expect(plain(shown.stdout)).toMatch(/name\s+staging/);
    expect(plain(shown.stdout)).toMatch(/in use\s+yes \(from --profile\)/);
  });

  it('auth status says where the profile, the address and the key come from', async () => {
    const status = await run(
      ['auth', 'status'],
      { PETS_PROFILE: 'production' },
      { stdoutIsTTY: true },
    );
    expect(status.code).toBe(0);
    expect(plain(status.stdout)).toMatch(/profile\s+production \(from PETS_PROFILE\)/);
    expect(plain(status.stdout)).toMatch(/base url\s+http:\/\/\S+ \(from the config\)/);
    expect(plain(status.stdout)).toMatch(/key\s+\*\*\*\*0042 \(from the config\)/);
    const json = JSON.parse(
      (await run(['auth', 'status', '--json'], { PETS_BASE_URL: sandbox.baseUrl })).stdout,
    );
    expect(json).toMatchObject({
      profileSource: 'config',
      baseUrlSource: 'environment',
      keySource: 'config',
    });
  });
});

describe('the environment line of reads', () => {
  it('names the profile and host, dim, on a terminal', async () => {
    const host = new URL(sandbox.baseUrl).host;
    const listed = await run(['list'], {}, { stderrIsTTY: true, stdoutIsTTY: true });
    expect(listed.code).toBe(0);
    expect(listed.stderr.split('\n')[0]).toBe(`\u001b[2mproduction · ${host}\u001b[22m`);
    const quota = await run(['quota'], {}, { stderrIsTTY: true, stdoutIsTTY: true });
    expect(quota.stderr).toContain(`production · ${host}`);
    const got = await run(['get', '1'], {}, { stderrIsTTY: true, stdoutIsTTY: true });
    expect(got.stderr).toContain(`production · ${host}`);
  });

  it('names them for every create, single or batch; -q keeps the PROTECTED badge (issue 42)', async () => {
    const host = new URL(sandbox.baseUrl).host;
    await run(['profile', 'set', 'dev', '--base-url', sandbox.baseUrl]);
    const dev = { PETS_PROFILE: 'dev', PETS_API_KEY: sandbox.key };
    const tty = { stderrIsTTY: true, stdoutIsTTY: true };
    const one = await run(['add', '--name', 'Rex', '--category-id', '1'], dev, tty);
    expect(one.code, one.stderr).toBe(0);
    expect(plain(one.stderr)).toContain(`dev · ${host}`);
    const records = join(dir, 'one.ndjson');
    writeFileSync(records, '{"name":"A","categoryId":1}\n');
    const batch = await run(['add', '--file', records], dev, tty);
    expect(batch.code, batch.stderr).toBe(0);
    expect(plain(batch.stderr)).toContain(`dev · ${host}`);
    await run(['profile', 'set', 'production', '--protected']);
    const quiet = await run(['add', '--name', 'Rex', '--category-id', '1', '-q'], {}, tty);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(plain(quiet.stderr)).toContain(`PROTECTED  production ${host}`);
  });

  it('is absent in a pipe (either stream) and with -q', async () => {
    const piped = await run(['list']);
    expect(piped.stderr).not.toContain('production ·');
    const stdoutPiped = await run(['list'], {}, { stderrIsTTY: true });
    expect(stdoutPiped.stderr).not.toContain('production ·');
    const quiet = await run(['list', '-q'], {}, { stderrIsTTY: true, stdoutIsTTY: true });
    expect(quiet.stderr).not.toContain('production ·');
  });
});

describe('a base URL without /v1', () => {
  it('is refused with exit 2 and the URL to use instead', async () => {
    const result = await run(['profile', 'set', 'staging', '--base-url', 'http://127.0.0.1:8082']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('must end in /v1');
    expect(result.stderr).toContain('Use: http://127.0.0.1:8082/v1');
    const shown = JSON.parse((await run(['profile', 'show', 'staging', '--json'])).stdout);
    expect(shown.baseUrl).toBe('https://staging.example.com/v1');
  });

  it('is refused from PETS_BASE_URL too, before anything is sent', async () => {
    const result = await run(['list'], { PETS_BASE_URL: sandbox.baseUrl.replace(/\/v1$/, '/') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PETS_BASE_URL');
    expect(result.stderr).toContain(`Use: ${sandbox.baseUrl}`);
  });
});

describe('a saved base URL without /v1 (an old or hand-edited config)', () => {
  it('is refused before sending, with the command that fixes it; listing still works', async () => {
    const path = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.profiles.production.baseUrl = 'http://127.0.0.1:8082';
    writeFileSync(path, JSON.stringify(config));
    const result = await run(['list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the base URL of profile "production"');
    expect(result.stderr).toContain(
      'Run: pets profile set production --base-url http://127.0.0.1:8082/v1',
    );
    expect((await run(['profile', 'list'])).code).toBe(0);
  });
});

describe('profile remove of a protected profile', () => {
  const config = () => readFileSync(join(dir, 'config.json'), 'utf8');

  it('needs --yes where nobody can be asked, and changes nothing without it', async () => {
    const before = config();
    const refused = await run(['profile', 'remove', 'production']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('profile "production" is protected: removing it needs --yes');
    expect(config()).toBe(before);
    const forced = await run(['profile', 'remove', 'production', '--yes']);
    expect(forced.code).toBe(0);
    expect(
      JSON.parse((await run(['profile', 'show', 'production', '--json'])).stdout).baseUrl,
    ).toBeNull();
  });

  it('asks a person at a terminal to type its name, as a protected batch does', async () => {
    const host = new URL(sandbox.baseUrl).host;
    const terminal = { stdinIsTTY: true, stderrIsTTY: true };
    const person = scriptedPrompter(['yes']);
    const wrong = await run(
      ['profile', 'remove', 'production'],
      { NO_COLOR: '1' },
      {
        ...terminal,
        prompts: person,
      },
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(` PROTECTED  production ${host}\n`);
    expect(person.asked).toEqual([
      `Clear protected profile "production" (${host})? Type its name to go on:`,
    ]);
    expect(wrong.stderr).toContain('nothing was changed');
    const typed = await run(
      ['profile', 'remove', 'production'],
      { NO_COLOR: '1' },
      {
        ...terminal,
        prompts: scriptedPrompter(['production']),
      },
    );
    expect(typed.code).toBe(0);
    expect(typed.stderr).toContain('its base URL and key were cleared');
  });

  it('does not ask for an unprotected profile', async () => {
    await run(['profile', 'set', 'dev', '--base-url', sandbox.baseUrl]);
    expect((await run(['profile', 'remove', 'dev'])).code).toBe(0);
    await run(['profile', 'set', 'eu', '--base-url', sandbox.baseUrl, '--protected']);
    expect((await run(['profile', 'remove', 'eu'])).code).toBe(2);
  });
});
