import { describe, expect, it } from 'vitest';
import { readArgs, runKind } from '../../src/runtime/argv.js';
import { buildProgram, commandTable } from '../../src/cmd/root.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { captureIo } from '../helpers/io.js';

const table = commandTable();
const argsOf = (words: readonly string[]) => readArgs(['node', 'pets', ...words], table);
const COMMAND_NAMES = table.commands.flatMap(({ names }) => names);

describe('runKind', () => {
  it.each([
    [[], 'pets'],
    [['--help'], 'pets-help'],
    [['list', '--json'], 'list'],
    [['--json', '--profile', 'staging', 'list'], 'list'],
    [['--profile', 'sandbox', 'list'], 'list'],
    [['--profile', 'quota', 'list', '--help'], 'list-help'],
    [['--timeout', '5', '--max-wait', '0', 'get', '1'], 'get'],
    [['list', '-h'], 'list-help'],
    [['-h', 'list'], 'pets-help'],
    [['--profile', 'x', '--help', 'get'], 'pets-help'],
    [['profile', 'use', 'staging'], 'profile'],
    [['get', '--', 'list'], 'get'],
    [['--', '--help'], 'pets'],
    [['lst'], 'pets'],
    [['__complete', 'pets', 'li'], '__complete'],
  ])('%j is a %s run', (words, kind) => {
    expect(runKind(argsOf(words))).toBe(kind);
  });

  it('knows every top-level command and valued global option the program has', () => {
    const program = buildProgram(
      createDeps({ signal: new AbortController().signal, io: captureIo(), env: {} }),
      {},
    );
    expect(program.commands.map((command) => command.name()).sort()).toEqual(
      [...COMMAND_NAMES].sort(),
    );
    const valued = program.options.filter((option) => option.required || option.optional);
    expect(valued.map((option) => option.long).sort()).toEqual([...table.valuedOptions].sort());
  });
});

describe('buildProgram given what argv names', () => {
  const commandsFor = (...words: string[]) =>
    buildProgram(
      createDeps({ signal: new AbortController().signal, io: captureIo(), env: {} }),
      {},
      argsOf(words).command,
    ).commands.map((command) => command.name());

  it.each([
    [['list', '--json'], ['list']],
    [['--profile', 'quota', 'list'], ['list']],
    [['--timeout', '5', '-q', 'quota'], ['quota']],
    [['profile', 'use', 'staging'], ['profile']],
    [
      ['completion', 'bash'],
      ['completion', '__complete'],
    ],
  ])('defines only the command %j names', (words, defined) => {
    expect(commandsFor(...words).sort()).toEqual(defined.sort());
  });

  it.each([
    [[]],
    [['--help']],
    [['lst']],
    [['help', 'list']],
    [['__complete', 'pets', 'li']],
    [['--', 'list']],
    [['--profile']],
    [['-h', 'list']],
  ])('defines every command for %j', (words) => {
    expect(commandsFor(...words).sort()).toEqual([...COMMAND_NAMES].sort());
  });
});
