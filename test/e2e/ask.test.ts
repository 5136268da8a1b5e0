import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { tempConfigDir, tempDir } from '../helpers/config-dir.js';
import { runBinary } from '../helpers/run-binary.js';
import { hasScript, KEYS, onTerminal } from '../helpers/terminal.js';
import { testSandbox } from '../helpers/sandbox.js';

// At a terminal pets asks for what a command lacks (issue 23); where nobody can answer (a
// pipe, --no-input, CI) it never waits, and says what is missing. Every question is answered
// here through a real pseudo-terminal, with keys typed as a person types them, and what
// reached the server is counted from the sandbox's own log.

let sandbox: RunningSandbox;
let host: string;
beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited', key: 'sandbox_ask_tests_key_0042' });
  host = new URL(sandbox.baseUrl).host;
});

/** staging (unprotected) pointed at the sandbox, with its key. */
const stagingEnv = () => ({
  PETS_CONFIG_DIR: tempConfigDir(),
  PETS_PROFILE: 'staging',
  PETS_BASE_URL: sandbox.baseUrl,
  PETS_API_KEY: sandbox.key,
});
const requests = () => sandbox.requestLog.length;

describe.skipIf(!hasScript)('pets add at a terminal', { timeout: 90_000 }, () => {
  it('names the profile and host, asks name, category id and status, then creates the pet', async () => {
    const before = sandbox.pets().length;
    const term = onTerminal(['add'], stagingEnv());
    await term.waitFor(`Adding a pet on profile "staging" (${host}).`);
    await term.waitFor('Name');
    // Enter on an empty name: refused with the flag's reason, and asked again.
    term.type(KEYS.enter);
    await term.waitFor('It must not be empty.');
    term.type(`Rex${KEYS.enter}`);
    await term.waitFor('Category id');
    term.type(`abc${KEYS.enter}`);
    await term.waitFor('It must be an integer within int64');
    term.type(`${KEYS.backspace.repeat(3)}3${KEYS.enter}`);
    await term.waitFor('Status');
    await term.waitFor('none');
    // The cursor starts on none; up once is sold.
    term.type(KEYS.up);
    term.type(KEYS.enter);
    expect(await term.exited).toBe(0);
    const screen = term.screen();
    expect(screen.indexOf(`Adding a pet on profile "staging"`)).toBeLessThan(
      screen.indexOf('Name'),
    );
    expect(sandbox.pets().length).toBe(before + 1);
    expect(sandbox.pets().at(-1)).toMatchObject({ name: 'Rex', categoryId: 3n, status: 'sold' });
  });

  it('Enter on the status takes none: the pet has no status', async () => {
    const before = sandbox.pets().length;
    const term = onTerminal(['add', '--name', 'Plain'], stagingEnv());
    await term.waitFor('Category id');
    expect(term.screen()).not.toMatch(/\? Name/);
    term.type(`7${KEYS.enter}`);
    await term.waitFor('Status');
    await term.waitFor('none');
    term.type(KEYS.enter);
    expect(await term.exited).toBe(0);
    expect(sandbox.pets().length).toBe(before + 1);
    const pet = sandbox.pets().at(-1);
    expect(pet).toMatchObject({ name: 'Plain', categoryId: 7n });
    expect(pet?.status).toBeUndefined();
  });

  it.each([
    ['the name', []],
    ['the category id', [['Name', 'Rex']]],
    [
      'the status',
      [
        ['Name', 'Rex'],
        ['Category id', '3'],
      ],
    ],
  ])('Ctrl-C at %s ends with exit 130, and nothing is sent', async (_field, answers) => {
    const sent = requests();
    const term = onTerminal(['add'], stagingEnv());
    for (const [question, answer] of answers) {
      await term.waitFor(question!);
      if (answer) term.type(`${answer}${KEYS.enter}`);
    }
    await term.waitFor(['Name', 'Category id', 'Status'][answers.length]!);
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
    expect(term.screen()).toContain('interrupted at a question; nothing was sent or saved');
    expect(requests()).toBe(sent);
  });

  it('draws its questions in colour on a terminal, and without any under --no-color', async () => {
    const colour = /\u001b\[[0-9;]*m/;
    for (const [flags, coloured] of [
      [[], true],
      [['--no-color'], false],
    ] as const) {
      const term = onTerminal([...flags, 'add'], stagingEnv());
      await term.waitFor('Name');
      term.type(`Rex${KEYS.enter}`);
      await term.waitFor('Category id');
      term.type(KEYS.ctrlC);
      expect(await term.exited).toBe(130);
      expect(colour.test(term.raw())).toBe(coloured);
    }
  });

  it('on a protected profile, the badge names it before the first question', async () => {
    const term = onTerminal(['add'], { ...stagingEnv(), PETS_PROFILE: 'production' });
    await term.waitFor('Name');
    expect(term.screen()).toContain(` PROTECTED  production ${host}`);
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
  });
});

describe.skipIf(!hasScript)(
  'where nobody can answer, nothing is asked',
  { timeout: 90_000 },
  () => {
    const missing = 'add is missing --name and --category-id (or give --file)';

    it('in a pipe: the old error, exit 2, nothing sent', async () => {
      const sent = requests();
      const result = await runBinary(['add'], stagingEnv());
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(missing);
      expect(result.stderr).not.toContain('Name');
      const use = await runBinary(['profile', 'use'], stagingEnv());
      expect(use.code).toBe(2);
      expect(use.stderr).toContain("missing required argument 'name'");
      const login = await runBinary(['auth', 'login'], stagingEnv());
      expect(login.code).toBe(2);
      expect(login.stderr).toContain('cannot ask for the key: stdin is not a terminal');
      expect(requests()).toBe(sent);
    });

    it.each([
      ['--no-input', ['--no-input'], {}],
      ['CI=1', [], { CI: '1' }],
    ])('at a terminal with %s: no question, the old error', async (_name, flags, extraEnv) => {
      const sent = requests();
      const env = { ...stagingEnv(), ...extraEnv };
      const add = onTerminal([...flags, 'add'], env);
      expect(await add.exited).toBe(2);
      expect(add.screen()).toContain(missing);
      expect(add.screen()).not.toContain('Adding a pet');
      const use = onTerminal([...flags, 'profile', 'use'], env);
      expect(await use.exited).toBe(2);
      expect(use.screen()).toContain("missing required argument 'name'");
      const login = onTerminal([...flags, 'auth', 'login'], {
        ...extraEnv,
        PETS_CONFIG_DIR: tempConfigDir(),
      });
      expect(await login.exited).toBe(2);
      expect(login.screen()).not.toContain('input hidden');
      expect(login.screen()).not.toContain('Base URL');
      expect(requests()).toBe(sent);
    });

    it('at a terminal with --json or --jq: no question; each line shown is one JSON object', async () => {
      const sent = requests();
      const runs = [
        [['--json', 'add'], /add is missing --name and --category-id/],
        [['--jq', '.id', 'add'], /add is missing --name and --category-id/],
        [['--json', 'profile', 'use'], /missing required argument 'name'/],
        [['--json', 'auth', 'login'], /cannot ask for the key: --json was given/],
      ] as const;
      for (const [args, message] of runs) {
        const term = onTerminal([...args], { ...stagingEnv(), PETS_CONFIG_DIR: tempConfigDir() });
        expect(await term.exited).toBe(2);
        const lines = term
          .raw()
          .split(/\r?\n/)
          .filter((line) => line.trim() !== '');
        expect(lines.length).toBeGreaterThan(0);
        const errors = lines.map((line) => JSON.parse(line) as { error?: { message: string } });
        expect(errors.map(({ error }) => error?.message).join('\n')).toMatch(message);
      }
      expect(requests()).toBe(sent);
    });

    it('with stderr not a terminal (stdin one): no question, exit 2', async () => {
      const sent = requests();
      const errors = join(tempDir('pets-ask-'), 'stderr.txt');
      const add = onTerminal(['add'], stagingEnv(), `2>'${errors}'`);
      expect(await add.exited).toBe(2);
      expect(readFileSync(errors, 'utf8')).toContain(missing);
      expect(requests()).toBe(sent);
    });
  },
);

describe.skipIf(!hasScript)('pets profile use at a terminal', { timeout: 90_000 }, () => {
  const activeProfile = (dir: string) =>
    JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).activeProfile;

  /** A config with production (active, protected) and staging and dev. */
  async function threeProfiles(): Promise<string> {
    const dir = tempConfigDir();
    const env = { PETS_CONFIG_DIR: dir };
    await runBinary(['profile', 'set', 'dev', '--base-url', sandbox.baseUrl], env);
    await runBinary(['profile', 'use', 'production'], env);
    return dir;
  }

  it('offers the profiles, active and protected marked; arrows and Enter pick one', async () => {
    const dir = await threeProfiles();
    const term = onTerminal(['profile', 'use'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('Profile to use');
    await term.waitFor('staging');
    expect(term.screen()).toMatch(/production .*\(active, protected\)/);
    expect(term.screen()).toMatch(new RegExp(`dev +${host.replace(/\./g, '\\.')}`));
    // Sorted: dev, production, staging; the cursor starts on the active one.
    term.type(KEYS.down);
    term.type(KEYS.enter);
    expect(await term.exited).toBe(0);
    expect(term.screen()).toContain('Now using profile "staging"');
    expect(activeProfile(dir)).toBe('staging');
  });

  it('Enter alone keeps the active profile', async () => {
    const dir = await threeProfiles();
    const term = onTerminal(['profile', 'use'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('staging');
    term.type(KEYS.enter);
    expect(await term.exited).toBe(0);
    expect(term.screen()).toContain('Now using profile "production"');
  });

  it('Ctrl-C ends with exit 130 and changes nothing', async () => {
    const dir = await threeProfiles();
    const term = onTerminal(['profile', 'use'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('staging');
    term.type(KEYS.up);
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
    expect(activeProfile(dir)).toBe('production');
  });
});

describe.skipIf(!hasScript)('pets auth login at a terminal', { timeout: 90_000 }, () => {
  const saved = (dir: string) =>
    JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.production;

  it('asks for the base URL first, names the host, checks the key, then saves both', async () => {
    const dir = tempConfigDir();
    const sent = requests();
    const term = onTerminal(['auth', 'login'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('Base URL of profile "production"');
    // Checked as profile set checks it: plain http only to this machine.
    term.type(`http://example.com/v1${KEYS.enter}`);
    await term.waitFor('plain http is allowed only to a loopback host');
    term.type(`${KEYS.backspace.repeat(21)}${sandbox.baseUrl}${KEYS.enter}`);
    await term.waitFor(`Logging in to profile "production": the key will be sent to ${host}.`);
    await term.waitFor('API key (input hidden):');
    term.type(`${sandbox.key}${KEYS.enter}`);
    expect(await term.exited).toBe(0);
    expect(term.screen()).toContain(
      `Saved the key ****0042 for profile "production", which sends it to ${host}.`,
    );
    expect(term.screen()).not.toContain(sandbox.key);
    expect(term.screen()).not.toContain('warning');
    expect(saved(dir)).toMatchObject({ baseUrl: sandbox.baseUrl, apiKey: sandbox.key });
    // One request: the check.
    expect(requests()).toBe(sent + 1);
  });

  it('a key the server refuses is not saved, and it says so; Ctrl-C at the next try ends it', async () => {
    const dir = tempConfigDir();
    await runBinary(['profile', 'set', 'production', '--base-url', sandbox.baseUrl], {
      PETS_CONFIG_DIR: dir,
    });
    const term = onTerminal(['auth', 'login'], { PETS_CONFIG_DIR: dir });
    await term.waitFor(`the key will be sent to ${host}`);
    expect(term.screen()).not.toContain('Base URL of profile');
    await term.waitFor('input hidden');
    term.type(`wrongkey_TYPED_CANARY_123${KEYS.enter}`);
    await term.waitFor('Type it again (2 tries left), or press Ctrl-C to stop.');
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
    expect(term.screen()).toContain(`${host} refused the key (401); it was not saved`);
    expect(term.screen()).not.toContain('Saved the key');
    expect(term.screen()).not.toContain('CANARY');
    expect(saved(dir).apiKey).toBeUndefined();
  });

  it('an empty key after a refused one is exit 4, saying the key that was sent, not exit 2', async () => {
    const dir = tempConfigDir();
    await runBinary(['profile', 'set', 'production', '--base-url', sandbox.baseUrl], {
      PETS_CONFIG_DIR: dir,
    });
    const sent = requests();
    const term = onTerminal(['auth', 'login'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('input hidden');
    term.type(`wrongkey_0000_1234${KEYS.enter}`);
    await term.waitFor('Type it again (2 tries left)');
    term.type(KEYS.enter);
    // Exit 2 says nothing was sent; one key was.
    expect(await term.exited).toBe(4);
    expect(term.screen()).toContain('the API key is empty; before it, 1 key was sent and refused');
    expect(requests()).toBe(sent + 1);
    expect(saved(dir).apiKey).toBeUndefined();
  });

  it('Ctrl-C at the base URL ends with exit 130, nothing saved or sent', async () => {
    const dir = tempConfigDir();
    const sent = requests();
    const term = onTerminal(['auth', 'login'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('Base URL of profile "production"');
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
    expect(requests()).toBe(sent);
    expect(term.screen()).not.toContain('Saved');
  });
});

describe.skipIf(!hasScript)('the prompt library', { timeout: 90_000 }, () => {
  it('loads from its own file, only in a run that asks a question', async () => {
    const env = { ...stagingEnv(), NODE_DEBUG: 'module' };
    const withFlags = await runBinary(['add', '--name', 'Flagged', '--category-id', '1'], env);
    expect(withFlags.code).toBe(0);
    expect(withFlags.stderr).toContain('dist/runtime/cli-stack.js');
    expect(withFlags.stderr).not.toContain('vendor/inquirer.js');
    const piped = await runBinary(['add'], env);
    expect(piped.code).toBe(2);
    expect(piped.stderr).not.toContain('vendor/inquirer.js');
    const asked = onTerminal(['add'], env);
    await asked.waitFor('Name');
    expect(asked.screen()).toContain('vendor/inquirer.js');
    asked.type(KEYS.ctrlC);
    expect(await asked.exited).toBe(130);
  });
});
