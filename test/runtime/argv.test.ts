import { describe, expect, it } from 'vitest';
import { readEarlyArgs, VALUED_GLOBAL_OPTIONS } from '../../src/runtime/argv.js';
import { buildProgram } from '../../src/cmd/root.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { captureIo } from '../helpers/io.js';

const early = (words: readonly string[]) => readEarlyArgs(['node', 'pets', ...words]);

describe('the kind of run, which keys the compile cache', () => {
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
    [['__complete', 'pets', 'li'], '__complete'],
    // A kind is part of a file name: anything but a command's name is none.
    [['../../x'], 'pets'],
    [['LIST'], 'pets'],
    [['a'.repeat(40)], 'pets'],
  ])('%j is a %s run', (words, kind) => {
    expect(early(words).kind).toBe(kind);
  });

  it('knows every valued global option the program has', () => {
    const program = buildProgram(
      createDeps({ signal: new AbortController().signal, io: captureIo(), env: {} }),
      {},
    );
    const valued = program.options.filter((option) => option.required || option.optional);
    expect(valued.map((option) => option.long).sort()).toEqual([...VALUED_GLOBAL_OPTIONS].sort());
  });
});

describe('the flags an early error is reported by', () => {
  it('reads --json, --debug and --no-color before `--` only', () => {
    expect(early(['list', '--json', '--debug', '--no-color'])).toMatchObject({
      json: true,
      debug: true,
      color: false,
    });
    expect(early(['api', '--', '--json', '--debug', '--no-color'])).toMatchObject({
      json: false,
      debug: false,
      color: true,
    });
  });
});
