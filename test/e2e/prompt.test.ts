import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/config-dir.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { plainScreen } from '../helpers/terminal.js';

// util-linux `script` gives pets a real pseudo-terminal, so raw mode and echo are real.
const hasScript = spawnSync('script', ['--version']).status === 0;
const UNREACHABLE = 'http://127.0.0.1:9/v1';

describe.skipIf(!hasScript)('auth login on a terminal', () => {
  it('asks for the key without echoing it and stores it 0600', async () => {
    const dir = tempConfigDir();
    // Nothing listens there: the key is saved unchecked, with a warning.
    await runBinary(['profile', 'set', 'production', '--base-url', UNREACHABLE], {
      PETS_CONFIG_DIR: dir,
    });
    const child = spawn(
      'script',
      ['-qfc', `"${process.execPath}" "${BIN}" auth login`, '/dev/null'],
      {
        env: { PATH: process.env.PATH, PETS_CONFIG_DIR: dir, TERM: 'xterm' },
      },
    );
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      screen += text;
      if (text.includes('input hidden')) child.stdin.write('sk_test_TYPED_CANARY_5678\r');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(screen).toContain('API key (input hidden):');
    expect(screen).toContain(
      'Saved the key ****5678 for profile "production", which sends it to 127.0.0.1:9.',
    );
    expect(plainScreen(screen)).toContain('warning: the key was not checked');
    expect(screen).not.toContain('CANARY');
    expect(
      JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.production.apiKey,
    ).toBe('sk_test_TYPED_CANARY_5678');
  });
});

/**
 * Runs pets on a pseudo-terminal; `answer` is called with the screen so far as it grows. The
 * shell execs pets, so that Ctrl-C reaches pets alone and the exit code is pets's own.
 */
async function onTerminal(
  args: string,
  env: Record<string, string>,
  answer: (screen: string, type: (text: string) => void) => void,
): Promise<{ code: number | null; screen: string }> {
  const child = spawn(
    'script',
    ['-qefc', `exec "${process.execPath}" "${BIN}" ${args}`, '/dev/null'],
    {
      env: { PATH: process.env.PATH, TERM: 'xterm', ...env },
    },
  );
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    screen += text;
    answer(screen, (typed) => child.stdin.write(typed));
  });
  // A pets that ignores Ctrl-C must fail the test, not outlive it.
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(guard);
  return { code, screen };
}

describe.skipIf(!hasScript)('auth login --with-key with a terminal on stdin', () => {
  it('uses the hidden prompt instead of a blank screen', async () => {
    const dir = tempConfigDir();
    let typed = false;
    const { code, screen } = await onTerminal(
      'auth login --with-key',
      { PETS_CONFIG_DIR: dir },
      (seen, type) => {
        if (!typed && seen.includes('input hidden')) {
          typed = true;
          type('sk_test_PASTED_CANARY_4321\r');
        }
      },
    );
    expect(code).toBe(0);
    expect(screen).toContain('Saved the key ****4321');
    expect(screen).not.toContain('CANARY');
  });

  it('with --no-input says to paste the key and press Ctrl-D, and the first Ctrl-C ends it', async () => {
    let interrupted = false;
    const { code, screen } = await onTerminal(
      'auth login --with-key --no-input',
      { PETS_CONFIG_DIR: tempConfigDir() },
      (seen, type) => {
        if (!interrupted && seen.includes('then press Enter and Ctrl-D')) {
          interrupted = true;
          type('\u0003');
        }
      },
    );
    expect(screen).toContain('Paste the key, then press Enter and Ctrl-D');
    expect(code).toBe(130);
  });

  it('refuses a key typed with arrow keys', async () => {
    const dir = tempConfigDir();
    await runBinary(['profile', 'set', 'production', '--base-url', UNREACHABLE], {
      PETS_CONFIG_DIR: dir,
    });
    let typed = false;
    const { code, screen } = await onTerminal(
      'auth login',
      { PETS_CONFIG_DIR: dir },
      (seen, type) => {
        if (!typed && seen.includes('input hidden')) {
          typed = true;
          type('abc\u001b[Ddef\r');
        }
      },
    );
    expect(code).toBe(2);
    expect(screen).toContain('arrow keys or other editing keys');
    expect(screen).not.toContain('Saved the key');
  });
});

describe.skipIf(!hasScript)('pets sandbox on a terminal', () => {
  it('logs each request, and says it stopped on the first Ctrl-C', async () => {
    let asked = false;
    let stopped = false;
    const { code, screen } = await onTerminal(
      'sandbox --no-save-profile --seed 2',
      { PETS_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' },
      (seen, type) => {
        const key = /Key: (\S+)/.exec(seen)?.[1];
        const baseUrl = /(http:\/\/\S+\/v1)/.exec(seen)?.[1];
        if (!asked && key && baseUrl && seen.includes('Press Ctrl-C')) {
          asked = true;
          void fetch(`${baseUrl}/pets?limit=1`, {
            headers: { authorization: `Bearer ${key}` },
          }).then((reply) => reply.arrayBuffer());
        }
        if (!stopped && /GET \/v1\/pets\?limit=1 200 remaining 59/.test(seen)) {
          stopped = true;
          type('\u0003');
        }
      },
    );
    expect(code).toBe(0);
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
    const sandbox = await startSandbox({ plan: 'unlimited' });
    try {
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
    } finally {
      await sandbox.close();
    }
  });
});
