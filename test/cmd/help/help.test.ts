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
  it.each(COMMANDS)('pets %s --help leads with examples', async (command) => {
    const result = await runMain([...command.split(' '), '--help'], env());
    expect(result.code).toBe(0);
    expect(result.stdout.trimStart()).toMatch(/^Examples:\n {2}\$ /);
    expect(result.stdout.indexOf('Examples:')).toBeLessThan(result.stdout.indexOf('Usage:'));
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

  it('every command lists the global options too, as gh lists inherited flags', async () => {
    for (const command of ['list', 'add', 'get', 'profile show', 'sandbox']) {
      const help = (await runMain([...command.split(' '), '--help'], env())).stdout;
      const global = help.slice(help.indexOf('Global Options:'));
      expect(help).toContain('Global Options:');
      for (const flag of ['--json', '--profile <name>', '-q, --quiet', '--no-input']) {
        expect(global).toContain(flag);
      }
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
  it("starts with the issue's three examples", async () => {
    const result = await runMain(['api', '--help'], env());
    expect(result.stdout.trimStart()).toMatch(
      /^Examples:\n {2}\$ pets api \/store\/orders\n {2}\$ pets api \/pets -f name=Rex -F categoryId=3\n {2}\$ pets api \/pets --input new\.json\n/,
    );
  });
});
