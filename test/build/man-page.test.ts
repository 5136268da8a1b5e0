import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cmd/root.js';
import { helpTopics } from '../../src/cmd/help/help.js';
import { runBinary } from '../helpers/run-binary.js';

// dist/pets.1, written by `npm run build` (npm test builds first), read as a user reads it.

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = `${REPO}dist/pets.1`;
const hasMan = spawnSync('man', ['--version']).status === 0;
const hasGroff = spawnSync('groff', ['--version']).status === 0;
if (!hasMan) console.warn('man is not installed: the man page is checked as roff source only');

/** The page as `man` shows it, with runs of spaces made one. */
function rendered(): string {
  const result = spawnSync('man', ['-l', PAGE], {
    encoding: 'utf8',
    env: { ...process.env, MANWIDTH: '100', MANPAGER: 'cat', PAGER: 'cat', LANG: 'C.UTF-8' },
  });
  expect(result.status, result.stderr).toBe(0);
  return flat(result.stdout);
}

function flat(text: string): string {
  return text
    .replace(/[\u2010\u2212]/g, '-')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s+/g, ' ');
}

/** Every command help lists, as the man page should: not the hidden ones, nor groups' `help`. */
function allCommands(command: Command): Command[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .filter((sub) => sub.name() !== 'help' || command.parent === null)
    .flatMap((sub) => [sub, ...allCommands(sub)]);
}

const quiet = { write: () => true };
const program = buildProgram(
  { io: { stdout: quiet, stderr: quiet, stdoutIsTTY: false, stderrIsTTY: false } } as never,
  {},
);

describe('the man page, dist/pets.1', () => {
  it('is declared in package.json, so npm install -g puts it where man finds it', () => {
    const manifest = JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as { man?: string[] };
    expect(manifest.man).toEqual(['./dist/pets.1']);
  });

  it.skipIf(!hasGroff)('is roff that groff formats without a warning', () => {
    const result = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', PAGE], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
  });

  it.skipIf(!hasMan)('shows every command, with its arguments and options, as --help does', () => {
    const page = rendered();
    expect(page).toContain('NAME pets - Command-line client for the Animal Store API v1');
    const commands = allCommands(program);
    expect(commands.length).toBeGreaterThan(10);
    const help = program.createHelp();
    for (const command of commands) {
      expect(page, command.name()).toContain(flat(help.commandUsage(command)));
      expect(page, command.name()).toContain(flat(help.commandDescription(command)));
      for (const option of help.visibleOptions(command)) {
        if (option.long === '--help') continue;
        expect(page, `${command.name()} ${option.flags}`).toContain(
          flat(`${help.optionTerm(option)} ${help.optionDescription(option)}`),
        );
      }
    }
  });

  it.skipIf(!hasMan)('carries the examples that --help prints', async () => {
    const page = rendered();
    let examples = 0;
    for (const words of [[], ['list'], ['add'], ['profile', 'set'], ['auth', 'login']]) {
      const { stdout } = await runBinary([...words, '--help'], {});
      for (const line of stdout.split('\n').filter((text) => /^\s+\$ /.test(text))) {
        expect(page, words.join(' ')).toContain(flat(line.trim()));
        examples += 1;
      }
    }
    expect(examples).toBeGreaterThan(8);
  });

  it.skipIf(!hasMan)('carries every help topic, word for word', () => {
    const page = rendered();
    const topics = Object.entries(helpTopics());
    expect(topics.map(([name]) => name)).toEqual(
      expect.arrayContaining(['exit-codes', 'environment']),
    );
    expect(page).toMatch(/EXIT STATUS 0 success/);
    expect(page).toMatch(/ENVIRONMENT PETS_API_KEY/);
    for (const [name, text] of topics) {
      // The title line becomes the section's heading; the rest is the same text.
      expect(page, name).toContain(flat(text.replace(/^[^\n]*\n/, '')).trim());
    }
  });
});
