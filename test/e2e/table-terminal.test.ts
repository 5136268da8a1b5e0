import { describe, expect, it } from 'vitest';
import { tempConfigDir, tempDir } from '../helpers/config-dir.js';
import { runMain } from '../helpers/run-main.js';
import { hasTmux, petsInTmux } from '../helpers/terminal.js';

// `pets profile list` on a real terminal 60 columns wide (issue 42): names were cut to `pro…`
// while columns empty in every row (RATE STORE) kept their width.

const NAMES = ['production-eu-west', 'staging-eu-west-2'];

describe.skipIf(!hasTmux)('pets profile list in a 60-column terminal', () => {
  it('drops the empty column, keeps every name whole, and fits', async () => {
    const env = { PETS_CONFIG_DIR: tempConfigDir() };
    for (const name of NAMES) {
      const url = `https://${name}.animal-store.example.com/v1`;
      expect((await runMain(['profile', 'set', name, '--base-url', url], env)).code).toBe(0);
    }
    const run = await petsInTmux({
      dir: tempDir('pets-table-'),
      columns: 60,
      args: ['profile', 'list'],
      env,
      during: async () => {},
    });
    expect(run.code).toBe(0);
    const table = run.rows.filter((row) => row.includes('│') || row.includes('┌'));
    expect(table.join('\n')).not.toContain('RATE STORE');
    for (const name of NAMES) expect(table.some((row) => row.includes(` ${name} `))).toBe(true);
    // No row was wrapped by the terminal: the table fits its 60 columns.
    expect(run.lines.length).toBe(run.rows.length);
  });
});

describe.skipIf(!hasTmux)('help in a 60-column terminal', () => {
  it('wraps every description and note to the terminal; only example commands may run over', async () => {
    const run = await petsInTmux({
      dir: tempDir('pets-help-'),
      columns: 60,
      args: ['add', '--help'],
      env: { PETS_CONFIG_DIR: tempConfigDir() },
      during: async () => {},
    });
    expect(run.code).toBe(0);
    const text = run.lines.join('\n');
    expect(text).toContain('--dry-run');
    expect(text).toContain('act only with --file');
    const over = run.lines.filter((line) => line.length > 60 && !line.startsWith('  $ '));
    expect(over).toEqual([]);
  });
});
