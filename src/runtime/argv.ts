import type { CommandTable } from '../cmd/shared/command.js';

/**
 * What the command line says before commander reads it, read once per run: which command to
 * define, how to ready V8 for it, and how to report an error that comes before commander
 * has parsed anything.
 */
export interface RunArgs {
  /** The top-level command named, when it is one pets has. */
  command?: string;
  help: boolean;
  json: boolean;
  debug: boolean;
  /** false with --no-color. */
  color: boolean;
}

export function readArgs(argv: readonly string[], table: CommandTable): RunArgs {
  const words = argv.slice(2);
  const end = words.indexOf('--');
  const options = end === -1 ? words : words.slice(0, end);
  const at = options.findIndex(
    (word, index) =>
      !word.startsWith('-') && !table.valuedOptions.includes(options[index - 1] ?? ''),
  );
  const operand = at === -1 ? undefined : options[at];
  const helpAt = options.findIndex((word) => word === '--help' || word === '-h');
  // `pets -h list` asks for pets's own help, which lists every command.
  const known =
    (helpAt === -1 || helpAt > at) &&
    table.commands.some(({ names }) => operand !== undefined && names.includes(operand));
  return {
    ...(known ? { command: operand } : {}),
    help: helpAt !== -1,
    // --jq implies --json.
    json: options.some((word) => word === '--json' || word === '--jq' || word.startsWith('--jq=')),
    debug: options.includes('--debug'),
    color: !options.includes('--no-color'),
  };
}

/**
 * What a run is for, as in "list", "list-help" or "pets-help". It keys the compile cache,
 * since each kind of run compiles different functions of the same file.
 */
export function runKind(args: RunArgs): string {
  const command = args.command ?? 'pets';
  return args.help ? `${command}-help` : command;
}

/** Whether the run sends requests, and so wants the V8 flags undici's parser needs. */
export function callsApi(args: RunArgs, table: CommandTable): boolean {
  return (
    !args.help &&
    table.commands.some(
      ({ names, callsApi }) =>
        callsApi && args.command !== undefined && names.includes(args.command),
    )
  );
}
