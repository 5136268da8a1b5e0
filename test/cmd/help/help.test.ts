import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../../helpers/config-dir.js';
import { runMain } from '../../helpers/run-main.js';

const env = () => ({ PETS_CONFIG_DIR: tempConfigDir() });

const COMMANDS = [
  'list',
  'add',
  'get',
  'quota',
  'api',
  'profile',
  'profile list',
  'profile show',
  'profile use',
  'profile set',
  'profile remove',
  'auth',
  'auth login',
  'auth logout',
  'auth status',
  'sandbox',
  'completion',
  'help',
];

describe('help', () => {
  it.each(COMMANDS)(
    'pets %s --help reads in gh order: usage, description, examples, lists, global options',
    async (command) => {
      const result = await runMain([...command.split(' '), '--help'], env());
      expect(result.code).toBe(0);
      const help = result.stdout;
      // No leading blank line: the first line is the usage.
      expect(help).toMatch(new RegExp(`^Usage: pets ${command} `));
      const [, description] = help.split('\n');
      expect(help.split('\n')[2]).toMatch(/^\S/);
      expect(description).toBe('');
      const order = ['Usage:', 'Examples:\n  $ ', 'Global Options:'].map((heading) =>
        help.indexOf(heading),
      );
      expect(order.every((at) => at >= 0)).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      for (const list of ['Arguments:', 'Commands:', 'Options:\n']) {
        const at = help.indexOf(`\n${list}`);
        if (at >= 0) {
          expect(at).toBeGreaterThan(order[1]!);
          expect(at).toBeLessThan(order[2]!);
        }
      }
    },
  );

  it('pets --help: usage first, commands before the global options, the deprecated get last', async () => {
    const help = (await runMain(['--help'], env())).stdout;
    expect(help.startsWith('Usage: pets [options] [command]\n\nCommand-line client')).toBe(true);
    const examplesAt = help.indexOf('Examples:');
    const commandsAt = help.indexOf('Commands:');
    const globalAt = help.indexOf('Global Options:');
    expect(examplesAt).toBeGreaterThan(0);
    expect(commandsAt).toBeGreaterThan(examplesAt);
    expect(globalAt).toBeGreaterThan(commandsAt);
    const commandLines = help
      .slice(commandsAt, globalAt)
      .split('\n')
      .filter((line) => /^ {2}[a-z]/.test(line))
      .map((line) => line.trim().split(' ')[0]);
    expect(commandLines.at(-1)).toBe('get');
    expect(help.slice(commandsAt, globalAt)).toMatch(/Deprecated commands:\n {2}get <petId\.\.\.>/);
  });

  it.each([
    [['add', '--bogus'], 'pets add --help'],
    [['profile', 'use', 'dev', 'extra'], 'pets profile use --help'],
    [['profile', 'sett'], 'pets profile --help'],
    [['auth', 'login', 'extra'], 'pets auth login --help'],
    [['lsit'], 'pets --help'],
  ])('a usage error in %j points to %s', async (args, help) => {
    const result = await runMain(args, env());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Run \`${help}\` for usage.`);
    expect(result.stderr).not.toContain('<command>');
  });

  it.each([
    ['exit-codes', /130\s+interrupted/],
    ['environment', /PETS_CONFIG_DIR/],
  ])('pets help %s is a topic', async (topic, expected) => {
    const result = await runMain(['help', topic], env());
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(expected);
  });

  it('pets help <command> shows that command, and an unknown topic is a usage error', async () => {
    expect((await runMain(['help', 'profile', 'set'], env())).stdout).toContain(
      'Usage: pets profile set',
    );
    const unknown = await runMain(['help', 'nope'], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('exit-codes, environment');
  });

  it.each([
    [['lsit'], 'Did you mean list?'],
    [['list', '--stauts', 'sold'], 'Did you mean --status?'],
    [['profile', 'sett'], 'Did you mean set?'],
    [['-v'], 'Did you mean -V (--version)?'],
    [['list', '-Q'], 'Did you mean -q (--quiet)?'],
    [['help', 'exit-code'], 'Did you mean pets help exit-codes?'],
    [['help', 'profile', 'st'], 'Did you mean pets help profile set?'],
  ])('a typo in %j suggests the right word on one line', async (args, suggestion) => {
    const result = await runMain(args, env());
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(`(${suggestion})`);
  });

  it('every command lists the global options that act for it, and no other', async () => {
    const cases: Array<[string, string[], string[]]> = [
      ['list', ['--json', '--profile <name>', '-q, --quiet', '--timeout'], ['--no-input']],
      ['add', ['--json', '--profile <name>', '-q, --quiet', '--no-input'], []],
      ['profile show', ['--json', '--profile <name>', '-q, --quiet'], ['--timeout', '--no-input']],
      ['sandbox', ['--json', '--jq', '-q, --quiet'], ['--profile', '--timeout', '--debug']],
      ['completion', ['-q, --quiet', '--no-color'], ['--json', '--profile', '--timeout']],
    ];
    for (const [command, shown, left] of cases) {
      const help = (await runMain([...command.split(' '), '--help'], env())).stdout;
      const global = help.slice(help.indexOf('Global Options:'));
      expect(help).toContain('Global Options:');
      for (const flag of shown) expect(global, `${command}: ${flag}`).toContain(flag);
      for (const flag of left) expect(global, `${command}: ${flag}`).not.toContain(flag);
    }
  });

  it.each([
    ['list', '--status', 'choices: "available", "pending", "sold"'],
    ['add', '--format', 'choices: "ndjson", "json", "csv"'],
    ['sandbox', '--plan', 'choices: "free", "pro", "business", "unlimited"'],
  ])('%s --help lists the values of %s', async (command, _flag, choices) => {
    const help = (await runMain([command, '--help'], env())).stdout.replace(/\s+/g, ' ');
    expect(help).toContain(choices);
  });
});

describe('pets api --help', () => {
  it("shows the issue's three examples first", async () => {
    const result = await runMain(['api', '--help'], env());
    expect(result.stdout).toMatch(
      /\nExamples:\n {2}\$ pets api \/store\/orders\n {2}\$ pets api \/pets -f name=Rex -F categoryId=3\n {2}\$ pets api \/pets --input new\.json\n/,
    );
  });
});
