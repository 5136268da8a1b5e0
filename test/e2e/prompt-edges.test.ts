import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { runBinary } from '../helpers/run-binary.js';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { tempConfigDir, tempDir } from '../helpers/config-dir.js';
import {
  hasScript,
  hasTmux,
  KEYS,
  onTerminal,
  petsInTmux,
  type Terminal,
} from '../helpers/terminal.js';
import { testSandbox } from '../helpers/sandbox.js';

// pets's own questions at a real terminal (a pseudo-terminal from `script`), with keys typed
// as a person types them and signals sent from outside as `kill` sends them. What reached
// the server is counted from the sandbox's own log.

const STAGING_KEY = 'staging-key-123';
let sandbox: RunningSandbox;
let host: string;
beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited', key: STAGING_KEY });
  host = new URL(sandbox.baseUrl).host;
});

const requests = () => sandbox.requestLog.length;
const savedProfile = (dir: string, name: string) =>
  JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles[name];

/** A config folder whose profile staging points at the sandbox, with no key yet. */
async function stagingWithoutKey(): Promise<string> {
  const dir = tempConfigDir();
  await runBinary(['profile', 'set', 'staging', '--base-url', sandbox.baseUrl], {
    PETS_CONFIG_DIR: dir,
  });
  return dir;
}

/** Fails (instead of hanging to the helper's guard) when pets has not ended within `ms`. */
function endsWithin(term: Terminal, ms: number): Promise<number | null> {
  return Promise.race([
    term.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still running after ${ms} ms:\n${term.screen()}`)), ms),
    ),
  ]);
}

describe.skipIf(!hasScript)(
  'the hidden key prompt edits as a terminal does',
  { timeout: 60_000 },
  () => {
    it('Ctrl-U erases a pasted key: the server receives only the key typed after it', async () => {
      const dir = await stagingWithoutKey();
      const sent = requests();
      const term = onTerminal(['--profile', 'staging', 'auth', 'login'], { PETS_CONFIG_DIR: dir });
      await term.waitFor('API key (input hidden):');
      term.type('PRODUCTION-SECRET-KEY-999');
      term.type('\u0015');
      term.type(`${STAGING_KEY}${KEYS.enter}`);
      expect(await term.exited).toBe(0);
      // One request, which the sandbox took: it answers 401 to any other key.
      expect(requests()).toBe(sent + 1);
      expect(sandbox.requestLog.at(-1)?.status).toBe(200);
      expect(savedProfile(dir, 'staging').apiKey).toBe(STAGING_KEY);
      expect(term.screen()).not.toContain('PRODUCTION');
    });

    it('Ctrl-W erases a word and Backspace a character', async () => {
      const dir = await stagingWithoutKey();
      const term = onTerminal(['--profile', 'staging', 'auth', 'login'], { PETS_CONFIG_DIR: dir });
      await term.waitFor('API key (input hidden):');
      term.type('wrong-key-0000');
      term.type('\u0017');
      term.type('staging-key-12x');
      term.type(KEYS.backspace);
      term.type(`3${KEYS.enter}`);
      expect(await term.exited).toBe(0);
      expect(savedProfile(dir, 'staging').apiKey).toBe(STAGING_KEY);
    });

    it.each([
      ['Ctrl-A', '\u0001'],
      ['Ctrl-K', '\u000b'],
      ['Home', '\u001b[H'],
      ['Tab', '\t'],
    ])(
      'any other editing key (%s) refuses the key: exit 2, nothing sent or saved',
      async (_key, keys) => {
        const dir = await stagingWithoutKey();
        const sent = requests();
        const term = onTerminal(['--profile', 'staging', 'auth', 'login'], {
          PETS_CONFIG_DIR: dir,
        });
        await term.waitFor('API key (input hidden):');
        term.type(`staging-${keys}key-123${KEYS.enter}`);
        expect(await term.exited).toBe(2);
        expect(term.screen()).toContain('the key was typed with arrow keys or other editing keys');
        expect(term.screen()).toContain('Backspace, Ctrl-U and Ctrl-W');
        expect(requests()).toBe(sent);
        expect(savedProfile(dir, 'staging').apiKey).toBeUndefined();
      },
    );
  },
);

describe.skipIf(!hasScript)(
  'auth login at a terminal after a refused key',
  { timeout: 60_000 },
  () => {
    it('asks again, keeping the base URL just typed, and saves the key the server takes', async () => {
      const dir = tempConfigDir();
      const sent = requests();
      const term = onTerminal(['--profile', 'staging', 'auth', 'login'], { PETS_CONFIG_DIR: dir });
      await term.waitFor('Base URL of profile "staging"');
      term.type(`${sandbox.baseUrl}${KEYS.enter}`);
      for (const [tried, key] of ['wrong-key-0001', 'wrong-key-0002'].entries()) {
        await term.waitFor(new RegExp(`(API key \\(input hidden\\):[^]*){${tried + 1}}`));
        term.type(`${key}${KEYS.enter}`);
        await term.waitFor(`left), or press Ctrl-C to stop.`);
      }
      await term.waitFor(/(API key \(input hidden\):[^]*){3}/);
      term.type(`${STAGING_KEY}${KEYS.enter}`);
      expect(await term.exited).toBe(0);
      const screen = term.screen();
      // Asked once: no question about the address after the first key.
      expect(screen.indexOf('Base URL', screen.indexOf('API key'))).toBe(-1);
      expect(screen).toContain(
        `${host} refused the key (401); it was not saved. Type it again (2 tries left), or press Ctrl-C to stop.`,
      );
      expect(screen).toContain('Type it again (1 try left)');
      expect(screen).toContain(
        `Saved the key ****-123 for profile "staging", which sends it to ${host}.`,
      );
      expect(savedProfile(dir, 'staging')).toMatchObject({
        baseUrl: sandbox.baseUrl,
        apiKey: STAGING_KEY,
      });
      expect(requests()).toBe(sent + 3);
    });

    it('ends after the third refusal with exit 4, nothing saved', async () => {
      const dir = await stagingWithoutKey();
      const sent = requests();
      const term = onTerminal(['--profile', 'staging', 'auth', 'login'], { PETS_CONFIG_DIR: dir });
      for (let tried = 1; tried <= 3; tried++) {
        await term.waitFor(new RegExp(`(API key \\(input hidden\\):[^]*){${tried}}`));
        term.type(`wrong-key-000${tried}${KEYS.enter}`);
      }
      expect(await term.exited).toBe(4);
      expect(term.screen()).toContain(`${host} refused the key (401); it was not saved`);
      expect(savedProfile(dir, 'staging').apiKey).toBeUndefined();
      expect(requests()).toBe(sent + 3);
    });

    it('Ctrl-C after a refused key says that key was sent, and saves nothing', async () => {
      const dir = await stagingWithoutKey();
      const sent = requests();
      const term = onTerminal(['--profile', 'staging', 'auth', 'login'], { PETS_CONFIG_DIR: dir });
      await term.waitFor('API key (input hidden):');
      term.type(`wrong-key-0001${KEYS.enter}`);
      await term.waitFor('left), or press Ctrl-C to stop.');
      term.type(KEYS.ctrlC);
      expect(await term.exited).toBe(130);
      expect(term.screen()).toContain(
        'interrupted at a question; 1 key was sent and refused, and nothing was saved',
      );
      expect(term.screen()).not.toContain('nothing was sent');
      expect(savedProfile(dir, 'staging').apiKey).toBeUndefined();
      expect(requests()).toBe(sent + 1);
    });

    it('where nobody can be asked (--with-key from a pipe), one refusal ends it', async () => {
      const dir = await stagingWithoutKey();
      const sent = requests();
      const result = await runBinary(
        ['--profile', 'staging', 'auth', 'login', '--with-key'],
        { PETS_CONFIG_DIR: dir },
        'wrong-key-0001\n',
      );
      expect(result.code).toBe(4);
      expect(result.stderr).not.toContain('Type it again');
      expect(requests()).toBe(sent + 1);
    });
  },
);

/** Each of pets's own kinds of question, reached at a terminal, with what counts as sent. */
const QUESTIONS = {
  'the hidden key prompt': async () => {
    const dir = await stagingWithoutKey();
    return {
      args: ['--profile', 'staging', 'auth', 'login'],
      env: { PETS_CONFIG_DIR: dir },
      shown: 'API key (input hidden):',
      saved: () => savedProfile(dir, 'staging').apiKey,
    };
  },
  "the confirmation that types the profile's name": async () => {
    const records = join(tempDir('pets-prompt-'), 'two.ndjson');
    writeFileSync(records, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n');
    return {
      args: ['add', '--file', records],
      env: {
        PETS_CONFIG_DIR: tempConfigDir(),
        PETS_PROFILE: 'production',
        PETS_BASE_URL: sandbox.baseUrl,
        PETS_API_KEY: STAGING_KEY,
      },
      shown: 'go on:',
      saved: () => undefined,
    };
  },
  "pets add's Name (the prompt library)": async () => ({
    args: ['add'],
    env: {
      PETS_CONFIG_DIR: tempConfigDir(),
      PETS_PROFILE: 'staging',
      PETS_BASE_URL: sandbox.baseUrl,
      PETS_API_KEY: STAGING_KEY,
    },
    shown: 'Name',
    saved: () => undefined,
  }),
  "pets profile use's list (the prompt library, cursor hidden)": async () => {
    const dir = tempConfigDir();
    return {
      args: ['profile', 'use'],
      env: { PETS_CONFIG_DIR: dir },
      shown: 'staging',
      saved: () => {
        const config = join(dir, 'config.json');
        return existsSync(config)
          ? JSON.parse(readFileSync(config, 'utf8')).activeProfile
          : undefined;
      },
    };
  },
};

describe.skipIf(!hasScript)('a signal at a question', { timeout: 90_000 }, () => {
  const cases = Object.keys(QUESTIONS).flatMap((question) =>
    (
      [
        ['SIGINT', 130],
        ['SIGTERM', 143],
        ['SIGHUP', 129],
      ] as const
    ).map(([signal, code]) => [question as keyof typeof QUESTIONS, signal, code] as const),
  );

  it.each(cases)(
    '%s ends on the first %s from outside: exit %i, terminal restored, nothing sent or saved',
    async (question, signal, code) => {
      const { args, env, shown, saved } = await QUESTIONS[question]();
      const sent = requests();
      const term = onTerminal(args, env, '', 'stty -a');
      await term.waitFor(shown);
      process.kill(term.pid(), signal);
      await endsWithin(term, 5_000);
      const screen = term.screen();
      expect(screen).toContain(`pets exited ${code}`);
      expect(screen).toContain('interrupted at a question; nothing was sent or saved');
      // The terminal is as the shell left it: line editing and echo on (no raw mode)...
      const settings = screen.slice(screen.indexOf('pets exited'));
      expect(settings).toMatch(/(^|\s)icanon(\s|$)/);
      expect(settings).toMatch(/(^|\s)echo(\s|$)/);
      // ...and the cursor shown, if it was ever hidden.
      const raw = term.raw();
      expect(raw.lastIndexOf('\u001b[?25h')).toBeGreaterThanOrEqual(raw.lastIndexOf('\u001b[?25l'));
      expect(requests()).toBe(sent);
      expect(saved()).toBeUndefined();
    },
  );
});

describe.skipIf(!hasScript)('a paste of 200 KB into a question', { timeout: 90_000 }, () => {
  const PASTE = 'x'.repeat(200_000);

  it("pets add's Name: refused as too long at once; the next answer is taken", async () => {
    const { args, env } = await QUESTIONS["pets add's Name (the prompt library)"]();
    const sent = requests();
    const term = onTerminal(args, env);
    await term.waitFor('Name');
    const start = performance.now();
    term.type(`${PASTE}${KEYS.enter}`);
    await term.waitFor('At most 256 characters can be typed here; the rest was dropped.');
    console.log(
      `a 200 KB paste into Name was refused in ${Math.round(performance.now() - start)} ms`,
    );
    term.type(`\u0015Rex${KEYS.enter}`);
    await term.waitFor('Category id');
    term.type(KEYS.ctrlC);
    expect(await endsWithin(term, 5_000)).toBe(130);
    expect(requests()).toBe(sent);
  });

  it('Ctrl-C right behind the paste ends the run', async () => {
    const { args, env } = await QUESTIONS["pets add's Name (the prompt library)"]();
    const term = onTerminal(args, env);
    await term.waitFor('Name');
    term.type(`${PASTE}${KEYS.ctrlC}`);
    expect(await endsWithin(term, 5_000)).toBe(130);
  });

  it('the hidden key prompt: refused as too long, nothing sent or saved', async () => {
    const { args, env, saved } = await QUESTIONS['the hidden key prompt']();
    const sent = requests();
    const term = onTerminal(args, env);
    await term.waitFor('API key (input hidden):');
    term.type(`${PASTE}${KEYS.enter}`);
    expect(await endsWithin(term, 5_000)).toBe(2);
    expect(term.screen()).toContain('the key is longer than 65536 characters');
    expect(requests()).toBe(sent);
    expect(saved()).toBeUndefined();
  });

  it("the profile's name: not the name, nothing sent", async () => {
    const { args, env } = await QUESTIONS["the confirmation that types the profile's name"]();
    const sent = requests();
    const term = onTerminal(args, env);
    await term.waitFor('go on:');
    term.type(`${PASTE}${KEYS.enter}`);
    expect(await endsWithin(term, 5_000)).toBe(2);
    expect(term.screen()).toContain('that is not the profile name; nothing was sent');
    expect(requests()).toBe(sent);
  });

  it('pets profile use: the paste is dropped, Enter picks the active profile', async () => {
    const term = onTerminal(['profile', 'use'], { PETS_CONFIG_DIR: tempConfigDir() });
    await term.waitFor('staging');
    term.type(`${PASTE}${KEYS.enter}`);
    expect(await endsWithin(term, 5_000)).toBe(0);
    expect(term.screen()).toContain('Now using profile "production"');
  });
});

describe('a paste with a line break into the hidden key prompt', { timeout: 60_000 }, () => {
  // Before: the first line went to the server as the key (here the right one: saved, exit 0)
  // and the rest waited as the next answer.
  const PASTE = `${STAGING_KEY}\nnotes: staging key`;

  it.skipIf(!hasScript)('unmarked, in one read: refused, nothing sent or saved', async () => {
    const dir = await stagingWithoutKey();
    const sent = requests();
    const term = onTerminal(['--profile', 'staging', 'auth', 'login'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('API key (input hidden):');
    term.type(`${PASTE.replace('\n', KEYS.enter)}${KEYS.enter}`);
    expect(await endsWithin(term, 5_000)).toBe(2);
    expect(term.screen()).toContain('the key was pasted with a line break inside it');
    expect(requests()).toBe(sent);
    expect(savedProfile(dir, 'staging').apiKey).toBeUndefined();
  });

  /** `pets auth login` in tmux, pasted into with `paste-buffer` and `flags`; then `keys`. */
  async function pasteInTmux(text: string, flags: string[], keys: string[] = []) {
    const dir = await stagingWithoutKey();
    const sent = requests();
    const { lines, code } = await petsInTmux({
      dir: join(dir, '..'),
      columns: 100,
      args: ['--profile', 'staging', 'auth', 'login'],
      env: { PETS_CONFIG_DIR: dir },
      during: async (pane) => {
        await pane.until(/API key \(input hidden\):/);
        pane.tmux('set-buffer', '-b', 'paste', '--', text);
        pane.tmux('paste-buffer', '-b', 'paste', '-t', 'pets', ...flags);
        if (keys.length > 0) pane.tmux('send-keys', '-t', 'pets', ...keys);
      },
    });
    return {
      code,
      screen: lines.join('\n'),
      requests: requests() - sent,
      saved: savedProfile(dir, 'staging').apiKey as string | undefined,
    };
  }

  it.skipIf(!hasTmux)(
    'from tmux, marked as a paste (-p) or not: refused, nothing sent or saved',
    async () => {
      for (const flags of [['-p'], []]) {
        const run = await pasteInTmux(PASTE, flags);
        expect({ flags, code: run.code, requests: run.requests, saved: run.saved }).toEqual({
          flags,
          code: 2,
          requests: 0,
          saved: undefined,
        });
        expect(run.screen).toContain('the key was pasted with a line break inside it');
      }
    },
  );

  it.skipIf(!hasTmux)(
    'a key pasted alone, marked, is taken at Enter or at the line end it carries',
    async () => {
      for (const [text, keys] of [
        [STAGING_KEY, ['Enter']],
        [`${STAGING_KEY}\n`, []],
      ] as const) {
        const run = await pasteInTmux(text, ['-p'], [...keys]);
        expect({ text, code: run.code, requests: run.requests, saved: run.saved }).toEqual({
          text,
          code: 0,
          requests: 1,
          saved: STAGING_KEY,
        });
      }
    },
  );
});
