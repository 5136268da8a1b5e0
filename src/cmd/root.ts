import { Command } from 'commander';
import { packageVersion } from '../core/version.js';
import { jsonOutput } from '../output/mode.js';
import { apiCommand } from './api/api.js';
import { authCommand } from './auth/auth.js';
import { completionCommand } from './completion/completion.js';
import type { Deps } from './shared/deps.js';
import { HELP_TOPICS, helpCommand } from './help/help.js';
import { addCommand } from './pets/add.js';
import { getCommand } from './pets/get.js';
import { listCommand } from './pets/list.js';
import { profileCommand } from './profile/profile.js';
import { quotaCommand } from './quota/quota.js';
import { sandboxCommand } from './sandbox/sandbox.js';
import { parseNonNegativeSeconds, parseSeconds } from './shared/arguments.js';
import type { CommandModule } from './shared/command.js';
import { examples, formatHelp, PetsCommand } from './shared/help-text.js';
import {
  refuseContradictions,
  refuseInertGlobals,
  visibleGlobalOptions,
} from './shared/global-scope.js';
import { checkJqBeforeActions } from './shared/json-output.js';
import { Session, type GlobalOptions, type SessionSource } from './shared/session.js';
import { helpOutput } from '../terminal/help-output.js';

/** Holds the session of this run, made on first use once commander has parsed the options. */
export interface RunState {
  session?: Session;
}

/** Every top-level command, in the order help lists them: the deprecated `get` last. */
export const COMMANDS: readonly CommandModule[] = [
  listCommand,
  addCommand,
  quotaCommand,
  apiCommand,
  profileCommand,
  authCommand,
  sandboxCommand,
  completionCommand,
  helpCommand,
  getCommand,
];

/** The program, with every command. */
export function buildProgram(deps: Deps, state: RunState): Command {
  const program = withGlobalOptions(new PetsCommand('pets'));
  program
    // Every command's help lists the global options that act for it (global-scope.ts), as gh
    // lists inherited flags, and reads in gh's order (help-text.ts).
    // Set before any command is made: commands share this configuration from their parent.
    .configureHelp({ showGlobalOptions: true, formatHelp, visibleGlobalOptions })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput(helpOutput(deps, () => jsonOutput(program.opts<GlobalOptions>())));

  const getSession: SessionSource = () => {
    state.session ??= new Session(deps, program.opts<GlobalOptions>());
    return state.session;
  };
  // A global that does not act for the command is refused first, before --jq is compiled.
  refuseInertGlobals(program);
  checkJqBeforeActions(program, getSession);
  for (const command of COMMANDS) command.define(program, getSession);
  refuseContradictions(program);
  program.addHelpText(
    'before',
    examples(
      'pets auth login',
      'pets profile set production --base-url https://api.example.com/v1',
      'pets list --status available --limit 50',
      'pets add --name Rex --category-id 3 --status available',
      "pets list --json | jq '.[].name'",
    ),
  );
  program.addHelpText(
    'after',
    '\nA global option acts on the commands whose --help lists it. Given to another, it\n' +
      'is refused (exit 2) and nothing is sent; help itself accepts any. An option given\n' +
      'with its opposite (--protected --no-protected) is refused too, naming both.\n' +
      `\nTopics: ${HELP_TOPICS.map((topic) => `pets help ${topic}`).join(', ')}.\n`,
  );
  return program;
}

/** The options every command takes, with the version and help flags. */
function withGlobalOptions<C extends Command>(program: C): C {
  return program
    .description('Command-line client for the Animal Store API v1.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'profile to use (default: PETS_PROFILE, else the active profile)')
    .option('--json', 'machine output: exact JSON on stdout, JSON lines on stderr')
    .option('--jq <expression>', 'filter the JSON output with jq (implies --json)')
    .option('--no-color', 'no ANSI colour (also NO_COLOR, FORCE_COLOR=0, TERM=dumb)')
    .option('-q, --quiet', 'no hints, progress or notices on stderr; errors still print')
    .option('--timeout <seconds>', 'per-request timeout', parseSeconds, 30)
    .option(
      '--max-wait <seconds>',
      'most time to wait on rate limits, in all, before exit 5 (default: 60; a batch waits as its records need)',
      parseNonNegativeSeconds,
    )
    .option('--debug', 'trace HTTP requests on stderr (the key shows as Bearer ***)')
    .option('--no-input', 'never prompt; fail instead where a question would be asked');
}
