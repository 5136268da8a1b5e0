import { Command } from 'commander';
import { packageVersion } from '../core/version.js';
import { parseNonNegativeSeconds, parseSeconds } from './shared/arguments.js';
import { registerApiCommand } from './api/api-command.js';
import { registerAuthCommands } from './auth/auth-commands.js';
import { registerCompletionCommand } from './completion/completion.js';
import { registerHelpCommand } from './help/help.js';
import type { Deps } from './deps.js';
import { registerPetCommands } from './pets/pet-commands.js';
import { registerProfileCommands } from './profile/profile-commands.js';
import { registerQuotaCommand } from './quota/quota-command.js';
import { registerSandboxCommand } from './sandbox/sandbox.js';
import { Session, type GlobalOptions } from './shared/session.js';

/** Holds the session of this run, made on first use once commander has parsed the options. */
export interface RunState {
  session?: Session;
}

export type SessionSource = () => Session;

type Register = (program: Command, session: SessionSource) => void;

/** What defines each top-level command, in the order help lists them. */
const REGISTRARS: ReadonlyArray<readonly [names: readonly string[], register: Register]> = [
  [['list', 'add', 'get'], registerPetCommands],
  [['quota'], registerQuotaCommand],
  [['api'], registerApiCommand],
  [['profile'], registerProfileCommands],
  [['auth'], registerAuthCommands],
  [['sandbox'], registerSandboxCommand],
  [['completion', '__complete'], registerCompletionCommand],
  [['help'], registerHelpCommand],
];

// Commands that walk the whole program: they need every command defined.
const NEED_ALL = new Set(['help', '__complete']);

/**
 * The program, with every command, or given the run's `argv`, with only the command it
 * names: defining all of them (~20 commands, ~60 options) cost ~2 ms of every run. A run
 * that names none (--help, a typo) gets them all.
 */
export function buildProgram(deps: Deps, state: RunState, argv?: readonly string[]): Command {
  const program = new Command('pets');
  program
    .description('Command-line client for the Animal Store API v1.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'profile to use (default: PETS_PROFILE, else the active profile)')
    .option('--json', 'machine output: exact JSON on stdout, errors as JSON on stderr')
    .option('--no-color', 'no ANSI colour (also NO_COLOR, FORCE_COLOR=0, TERM=dumb)')
    .option('-q, --quiet', 'no hints, progress or notices on stderr; errors still print')
    .option('--timeout <seconds>', 'per-request timeout', parseSeconds, 30)
    .option(
      '--max-wait <seconds>',
      'most time to wait on rate limits before exit 5',
      parseNonNegativeSeconds,
      60,
    )
    .option('--debug', 'trace HTTP requests on stderr (the key shows as Bearer ***)')
    .option('--no-input', 'never prompt; fail instead where a question would be asked')
    // Every command's help lists the global options too, as gh lists inherited flags.
    // Set before any command is made: commands share this configuration from their parent.
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => deps.io.stdout.write(text),
      writeErr: (text) => deps.io.stderr.write(text),
      // main prints usage errors itself, in text or JSON, with the exit code of the contract.
      outputError: () => {},
      // Asked of our io: commander would build process.stdout (loading Node's streams) just
      // to learn that output is not a terminal, and then use 80 columns, as here. pets's help
      // has no colour to keep.
      getOutHelpWidth: () => (deps.io.stdoutIsTTY ? process.stdout.columns : 80),
      getErrHelpWidth: () => (deps.io.stderrIsTTY ? process.stderr.columns : 80),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });

  const session: SessionSource = () => {
    state.session ??= new Session(deps, program.opts<GlobalOptions>());
    return state.session;
  };
  const named = argv && commandNamed(program, argv.slice(2));
  const only = named && !NEED_ALL.has(named) && REGISTRARS.find(([names]) => names.includes(named));
  for (const [, register] of only ? [only] : REGISTRARS) register(program, session);
  program.addHelpText(
    'before',
    examples(
      'pets profile set production --base-url https://api.example.com/v1',
      'pets auth login',
      'pets list --status available --limit 50',
      'pets add --name Rex --category-id 3 --status available',
      "pets list --json | jq '.[].name'",
    ),
  );
  program.addHelpText('after', '\nMore: pets help exit-codes, pets help environment.\n');
  return program;
}

/**
 * The first word of `args` that is not an option or an option's value, as commander will
 * read it: the top-level command, if the run names one.
 */
function commandNamed(program: Command, args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (!arg.startsWith('-')) return arg;
    const option = program.options.find(({ short, long }) => arg === short || arg === long);
    const next = args[i + 1];
    if (option?.required || (option?.optional && next !== undefined && !next.startsWith('-'))) {
      i++;
    }
  }
  return undefined;
}

/** Help text that leads with examples, shared by every command. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
