import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/config-dir.js';
import { runMain } from '../helpers/run-main.js';

const env = () => ({ PETS_CONFIG_DIR: tempConfigDir() });

const COMMANDS = [
  'list',
  'add',
  'get',
  'quota',
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
  ])('a typo in %j suggests the right word on one line', async (args, suggestion) => {
    const result = await runMain(args, env());
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(`(${suggestion})`);
  });
});
