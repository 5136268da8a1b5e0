import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/config-dir.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { hasScript, KEYS, onTerminal } from '../helpers/terminal.js';
import { testSandbox } from '../helpers/sandbox.js';

// Each run gets a real pseudo-terminal (util-linux `script`), so raw mode and echo are real.
const UNREACHABLE = 'http://127.0.0.1:9/v1';

describe.skipIf(!hasScript)('auth login on a terminal', () => {
  it('asks for the key without echoing it and stores it 0600', async () => {
    const dir = tempConfigDir();
    // Nothing listens there: the key is saved unchecked, with a warning.
    await runBinary(['profile', 'set', 'production', '--base-url', UNREACHABLE], {
      PETS_CONFIG_DIR: dir,
    });
    const term = onTerminal(['auth', 'login'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('API key (input hidden):');
    term.type(`sk_test_TYPED_CANARY_5678${KEYS.enter}`);
    expect(await term.exited).toBe(0);
    expect(term.screen()).toContain(
      'Saved the key ****5678 for profile "production", which sends it to 127.0.0.1:9.',
    );
    expect(term.screen()).toContain('warning: the key was not checked');
    expect(term.raw()).not.toContain('CANARY');
    expect(
      JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.production.apiKey,
    ).toBe('sk_test_TYPED_CANARY_5678');
  });
});

describe.skipIf(!hasScript)('auth login --with-key with a terminal on stdin', () => {
  it('uses the hidden prompt instead of a blank screen', async () => {
    const term = onTerminal(['auth', 'login', '--with-key'], { PETS_CONFIG_DIR: tempConfigDir() });
    await term.waitFor('input hidden');
    term.type(`sk_test_PASTED_CANARY_4321${KEYS.enter}`);
    expect(await term.exited).toBe(0);
    expect(term.screen()).toContain('Saved the key ****4321');
    expect(term.raw()).not.toContain('CANARY');
  });

  it('with --no-input says to paste the key and press Ctrl-D, and the first Ctrl-C ends it', async () => {
    const term = onTerminal(['auth', 'login', '--with-key', '--no-input'], {
      PETS_CONFIG_DIR: tempConfigDir(),
    });
    await term.waitFor('Paste the key, then press Enter and Ctrl-D');
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
  });

  it('refuses a key typed with arrow keys', async () => {
    const dir = tempConfigDir();
    await runBinary(['profile', 'set', 'production', '--base-url', UNREACHABLE], {
      PETS_CONFIG_DIR: dir,
    });
    const term = onTerminal(['auth', 'login'], { PETS_CONFIG_DIR: dir });
    await term.waitFor('input hidden');
    term.type(`abc${KEYS.left}def${KEYS.enter}`);
    expect(await term.exited).toBe(2);
    expect(term.screen()).toContain('arrow keys or other editing keys');
    expect(term.screen()).not.toContain('Saved the key');
  });
});

describe.skipIf(!hasScript)('pets sandbox on a terminal', () => {
  it('logs each request, and says it stopped on the first Ctrl-C', async () => {
    const term = onTerminal(['sandbox', '--no-save-profile', '--seed', '2'], {
      PETS_CONFIG_DIR: tempConfigDir(),
      NO_COLOR: '1',
    });
    await term.waitFor('Press Ctrl-C');
    const key = /Key: (\S+)/.exec(term.screen())?.[1];
    const baseUrl = /(http:\/\/\S+\/v1)/.exec(term.screen())?.[1];
    await fetch(`${baseUrl}/pets?limit=1`, {
      headers: { authorization: `Bearer ${key}` },
    }).then((reply) => reply.arrayBuffer());
    await term.waitFor(/GET \/v1\/pets\?limit=1 200 remaining 59/);
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(0);
    const screen = term.screen();
    expect(screen).toMatch(/\d\d:\d\d:\d\d GET \/v1\/pets\?limit=1 200 remaining 59/);
    expect(screen).toContain('Sandbox stopped after 1 request.');
  });
});

describe.skipIf(!hasScript)('tables on a terminal', () => {
  it('draws profiles as a table, with cli-table3 loaded from its own file', async () => {
    const child = spawn(
      'script',
      ['-qfc', `"${process.execPath}" "${BIN}" profile list --no-color`, '/dev/null'],
      { env: { PATH: process.env.PATH, PETS_CONFIG_DIR: tempConfigDir(), TERM: 'xterm' } },
    );
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(screen).toMatch(/┌─+┬/);
    expect(screen).toMatch(/│ \* +│ production +│/);
  });

  it('fits a long name to the terminal width, and names the profile and host on a dim line', async () => {
    const sandbox = await testSandbox({ plan: 'unlimited' });
    const env = {
      PETS_CONFIG_DIR: tempConfigDir(),
      PETS_BASE_URL: sandbox.baseUrl,
      PETS_API_KEY: sandbox.key,
    };
    const name = 'N'.repeat(160);
    await runBinary(['add', '--name', name, '--category-id', '1'], env);
    const child = spawn(
      'script',
      ['-qfc', `stty cols 70; "${process.execPath}" "${BIN}" list --no-color`, '/dev/null'],
      { env: { PATH: process.env.PATH, TERM: 'xterm', ...env } },
    );
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const lines = screen.split(/\r?\n/).filter((line) => line.includes('│'));
    expect(lines.length).toBe(2);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(70);
    expect(screen).toContain('N…');
    expect(screen).toContain(`production · ${new URL(sandbox.baseUrl).host}`);
  });
});
