import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cmd/root.js';
import { HELP_TOPICS, helpTopics } from '../src/cmd/help/help.js';

// The README is for the first ten minutes (#40): short, pointing only at help that exists, and
// the detail it leaves out is in `pets help` and so in the man page, which carries every topic
// and every command's --help.

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

let captured = '';
const output = { write: (text: string) => void (captured += text) };
const program = buildProgram(
  { io: { stdout: output, stderr: output, stdoutIsTTY: false, stderrIsTTY: false } } as never,
  {},
);
function allCommands(command: Command): Command[] {
  return command.commands.flatMap((sub) => [sub, ...allCommands(sub)]);
}
for (const command of [program, ...allCommands(program)]) command.outputHelp();
const HELP = [captured, ...Object.values(helpTopics())].join('\n').replace(/\s+/g, ' ');

describe('the README', () => {
  it('has at most 250 lines and 2,200 words', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
    expect(README.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(2200);
  });

  it('points only at help topics and commands that exist', () => {
    const names = new Set(program.commands.map((command) => command.name()));
    for (const [, topic] of README.matchAll(/pets help ([a-z-]+)/g)) {
      expect(HELP_TOPICS, topic).toContain(topic);
    }
    const code = [...README.matchAll(/^```\w*\n([\s\S]*?)^```/gm)].map(([, block]) => block);
    for (const [, word] of code.join('').matchAll(/^(?:\$ )?pets (?:--profile \S+ )?([a-z]+)/gm)) {
      expect(names, word).toContain(word);
    }
  });

  it('names the rate-limit header dialects pets reads, and where the table is (#39)', () => {
    const text = README.replace(/\s+/g, ' ');
    for (const dialect of ['X-RateLimit-*', 'IETF `RateLimit` drafts (6, 7, 8', 'Retry-After']) {
      expect(text).toContain(dialect);
    }
    expect(text).toMatch(/sends none, it learns from its 429s\. More: `pets help rate-limits`/);
  });

  // What earlier READMEs said, and this one leaves to help: one phrase of each fact.
  it.each([
    'An answer takes at most 256 characters',
    'CI is not set',
    'ignored by the executable pets-linux-x64',
    'A variable is never refused',
    'with its opposite (--protected --no-protected) is refused',
    'nothing to confirm, and is accepted',
    'free (60 per minute, 1,000 per day), pro (300, 10,000), business (1,000, 100,000)',
    'banned for ten minutes',
    'one whose sandbox has stopped',
    '174 MiB for three million',
    'counts as failed, never as not sent',
    'free some space, run the same command',
    'does not leave (a used-up quota still lets go the creates it had granted)',
    'a narrow terminal drops the attempt, then the reason',
    'which answered in 0.35 s',
    'got 24 429s, and the key banned, within 1.4 s',
    'a URL with a password is refused there',
    'The Redis client loads only when a store is configured',
    'Measured (2 s windows)',
    'the first non-blank byte',
    'a 403 from the server',
    'X-HTTP-Method-Override',
    'NO_PROXY',
    '407',
  ])('leaves to pets help: %s', (phrase) => {
    expect(HELP).toContain(phrase);
  });
});
