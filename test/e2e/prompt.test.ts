import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/config-dir.js';
import { BIN } from '../helpers/run-binary.js';

// util-linux `script` gives pets a real pseudo-terminal, so raw mode and echo are real.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('auth login on a terminal', () => {
  it('asks for the key without echoing it and stores it 0600', async () => {
    const dir = tempConfigDir();
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
    expect(screen).toContain('Saved the key ****5678 for profile "production".');
    expect(screen).not.toContain('CANARY');
    expect(
      JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.production.apiKey,
    ).toBe('sk_test_TYPED_CANARY_5678');
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
});
