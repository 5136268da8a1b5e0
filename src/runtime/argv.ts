import { jsonOutput } from '../output/mode.js';

/**
 * What main needs of the command line before commander has read it, found by a plain look at
 * the words: which compile cache entries to use, and how to report an error that comes
 * before commander has parsed --json, --debug or --no-color. Commander alone parses the
 * command line; nothing here decides what a run does.
 */
export interface EarlyArgs {
  /**
   * What the run is for, as "list", "list-help" or "pets-help". It keys the compile cache,
   * since each kind of run compiles different functions of the same file.
   */
  kind: string;
  json: boolean;
  debug: boolean;
  /** false with --no-color. */
  color: boolean;
}

/**
 * The global options that take a value: in `pets --profile quota list`, list is the command.
 * test/runtime/argv.test.ts checks this against the program's own options.
 */
export const VALUED_GLOBAL_OPTIONS: readonly string[] = [
  '--profile',
  '--timeout',
  '--max-wait',
  '--jq',
];

// A kind is part of a file name: it is a command's name or nothing.
const COMMAND_NAME = /^[_a-z][a-z0-9_-]{0,31}$/;

export function readEarlyArgs(argv: readonly string[]): EarlyArgs {
  const words = argv.slice(2);
  const end = words.indexOf('--');
  const options = end === -1 ? words : words.slice(0, end);
  const at = options.findIndex(
    (word, index) =>
      !word.startsWith('-') && !VALUED_GLOBAL_OPTIONS.includes(options[index - 1] ?? ''),
  );
  const operand = options[at];
  const helpAt = options.findIndex((word) => word === '--help' || word === '-h');
  // `pets -h list` asks for pets's own help, which lists every command.
  const command =
    operand !== undefined && COMMAND_NAME.test(operand) && (helpAt === -1 || helpAt > at)
      ? operand
      : 'pets';
  return {
    kind: helpAt === -1 ? command : `${command}-help`,
    json: jsonOutput({
      json: options.includes('--json'),
      jq: options.some((word) => word === '--jq' || word.startsWith('--jq=')) ? '' : undefined,
    }),
    debug: options.includes('--debug'),
    color: !options.includes('--no-color'),
  };
}
