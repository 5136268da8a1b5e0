import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cmd/root.js';
import { HELP_TOPICS, helpTopics } from '../../../src/cmd/help/help.js';
import { runMain } from '../../helpers/run-main.js';
import { tempConfigDir } from '../../helpers/config-dir.js';

// The topics of `pets help` say only what the program does: every option they name is one of
// its options, every command they name is one of its commands, and they fit a terminal.

const quiet = { write: () => true };
const program = buildProgram(
  { io: { stdout: quiet, stderr: quiet, stdoutIsTTY: false, stderrIsTTY: false } } as never,
  {},
);

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((sub) => [sub, ...allCommands(sub)]);
}

const commands = [program, ...allCommands(program)];
const options = new Set(
  commands.flatMap((command) =>
    command.options.flatMap((option) => [option.long, option.short].filter(Boolean)),
  ),
);
const commandNames = new Set(commands.map((command) => command.name()));

describe('the help topics', () => {
  it('are listed by pets help and in every topic list', () => {
    expect(HELP_TOPICS).toEqual(
      expect.arrayContaining([
        'config',
        'batches',
        'rate-limits',
        'json',
        'exit-codes',
        'environment',
      ]),
    );
  });

  it.each(Object.keys(helpTopics()))('pets help %s prints it, whole, on stdout', async (name) => {
    const result = await runMain(['help', name], { PETS_CONFIG_DIR: tempConfigDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(helpTopics()[name]);
  });

  it('rate-limits says the store must not evict, and what pets does if the key vanishes', () => {
    const text = helpTopics()['rate-limits']!.replace(/\s+/g, ' ');
    expect(text).toContain('maxmemory-policy noeviction');
    expect(text).toContain("the store no longer holds this key's state");
  });

  it.each(Object.keys(helpTopics()))('%s names only options and commands pets has', (name) => {
    const text = helpTopics()[name]!;
    for (const [flag] of text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)) {
      expect(options, `${name}: ${flag}`).toContain(flag);
    }
    // A command to type starts a line of a table, its description after two spaces or more.
    const typed = /^ +pets (?:--profile \S+ )?([a-z][a-z-]*)\b(?=\S*(?: \S+)* {2,}\S)/gm;
    for (const [, word] of text.matchAll(typed)) {
      expect(commandNames, `${name}: pets ${word}`).toContain(word);
    }
  });

  it.each(Object.keys(helpTopics()))('%s fits a terminal of 90 columns', (name) => {
    for (const line of helpTopics()[name]!.split('\n')) {
      expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(90);
    }
  });
});
