import { Command } from 'commander';
import { packageVersion } from '../version.js';
import { parseNonNegativeSeconds, parseSeconds } from './arguments.js';
import { registerAuthCommands } from './auth-commands.js';
import { registerCompletionCommand } from './completion-command.js';
import { registerHelpCommand } from './help-topics.js';
import type { Deps } from './deps.js';
import { registerPetCommands } from './pet-commands.js';
import { registerProfileCommands } from './profile-commands.js';
import { registerQuotaCommand } from './quota-command.js';
import { registerSandboxCommand } from './sandbox-command.js';
import { Session, type GlobalOptions } from './session.js';

/** Holds the session of this run, made on first use once commander has parsed the options. */
export interface RunState {
  session?: Session;
}

export type SessionSource = () => Session;

export function buildProgram(deps: Deps, state: RunState): Command {
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
  registerPetCommands(program, session);
  registerQuotaCommand(program, session);
  registerProfileCommands(program, session);
  registerAuthCommands(program, session);
  registerSandboxCommand(program, session);
  registerCompletionCommand(program, session);
  registerHelpCommand(program, session);
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

/** Help text that leads with examples, shared by every command. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
