import { Help, type Command, type Option } from 'commander';
import { UsageError } from '../../core/errors.js';
import { escapeForTerminal } from '../../core/terminal-text.js';
import { wordList } from './flag-rules.js';
import { commandName, JSON_COMMANDS } from './json-output.js';

/**
 * Where each global option acts. The globals are declared once, at the root (cmd/root.ts), so
 * commander takes every one of them on every command; this table says, for each command, which
 * of them change what it does. One given on the command line where it does not act is a usage
 * error naming it (exit 2, before the action: nothing is sent). The environment (PETS_PROFILE,
 * NO_COLOR, …) is never refused: it is set once for many commands.
 *
 * test/e2e/flag-matrix.test.ts walks the commander tree: a command or a global missing here
 * fails it, and it runs every pair this table refuses.
 */

/**
 * --quiet and --no-color act on every command: each can print an error, whose `error:` is red
 * at a terminal, and they only ever take decoration away (hints, notices, colour), never change
 * what is sent or saved. They are what a person puts in an alias (`alias pets='pets -q'`), so
 * refusing them where there is nothing to silence would break the alias and protect nothing.
 */
export const EVERYWHERE: readonly string[] = ['--quiet', '--no-color'];

/**
 * A command whose every global is accepted: asking for help must get help, whatever else was
 * typed (gh does the same). `pets help`, and a noun alone, which prints its help.
 */
export const HELP = 'help';

/** The requests a command sends to the API: the profile picks where, and these shape them. */
const SENDS = ['--profile', '--timeout', '--max-wait', '--debug'];
/** A command whose stdout is JSON under --json, and so can be filtered with --jq. */
const PRINTS_JSON = ['--json', '--jq'];
/**
 * --json without --jq: a command with nothing on stdout still writes its notices, warnings and
 * errors to stderr, as one JSON object a line under --json.
 */
const JSON_STDERR = ['--json'];

export const GLOBAL_SCOPE: Readonly<Record<string, typeof HELP | readonly string[]>> = {
  list: [...SENDS, ...PRINTS_JSON],
  add: [...SENDS, ...PRINTS_JSON, '--no-input'],
  quota: [...SENDS, ...PRINTS_JSON],
  api: [...SENDS, ...PRINTS_JSON, '--no-input'],
  get: [...SENDS, ...PRINTS_JSON],
  profile: HELP,
  // * marks the profile in use, which --profile chooses.
  'profile list': ['--profile', ...PRINTS_JSON],
  // Without a name, it shows the profile --profile chooses.
  'profile show': ['--profile', ...PRINTS_JSON],
  // Each of these names its profile as an argument.
  'profile use': [...JSON_STDERR, '--no-input'],
  'profile set': [...JSON_STDERR],
  'profile remove': [...JSON_STDERR, '--no-input'],
  auth: HELP,
  'auth login': [...SENDS, ...JSON_STDERR, '--no-input'],
  'auth logout': ['--profile', ...JSON_STDERR],
  'auth status': [...SENDS, ...PRINTS_JSON],
  // It serves requests and sends none; the profile it saves is --save-profile's.
  sandbox: [...PRINTS_JSON],
  // Its stdout is a shell script, not JSON.
  completion: [],
  // What the shells' scripts call, with every word after `--`: globals never reach it.
  __complete: [],
  help: HELP,
};

/**
 * What a command has nothing for, said after its name: `pets profile list, which sends
 * nothing`. `<command> <flag>` says it for one command, `<flag>` for the rest.
 */
const WHY: Record<string, string> = {
  'profile set --profile': "which takes the profile's name as its argument",
  'profile use --profile': "which takes the profile's name as its argument",
  'profile remove --profile': "which takes the profile's name as its argument",
  'sandbox --profile': 'which saves its profile under --save-profile',
  'completion --json': 'which prints a shell script, not JSON',
  '--profile': 'which uses no profile',
  '--json': 'which prints no JSON',
  '--jq': 'which prints no JSON',
  '--timeout': 'which sends nothing',
  '--max-wait': 'which sends nothing',
  '--debug': 'which sends nothing',
  '--no-input': 'which asks nothing',
};

/** What to do instead, for a command and a flag, given the value typed. */
const HINTS: Record<string, (value: unknown) => string> = {
  'sandbox --profile': (value) =>
    `To save the sandbox as profile "${escapeForTerminal(String(value))}", use --save-profile ${escapeForTerminal(String(value))}.`,
  '* --jq': () => `Commands with JSON output: ${JSON_COMMANDS.join(', ')}.`,
};

/** The globals that act for `name` (a command's words after `pets`), or HELP. */
export function actingGlobals(name: string): typeof HELP | readonly string[] {
  const declared = GLOBAL_SCOPE[name];
  // A command without a declaration takes none: its first test run says so.
  return declared === HELP ? HELP : [...EVERYWHERE, ...(declared ?? [])];
}

/** Refuses, before any action runs, the globals given on the command line that do not act there. */
export function refuseInertGlobals(program: Command): void {
  program.hook('preAction', (_program, action) => {
    const name = commandName(action);
    const acting = actingGlobals(name);
    if (acting === HELP) return;
    for (const option of program.options) {
      const flag = option.long;
      if (!flag || acting.includes(flag)) continue;
      const attribute = option.attributeName();
      if (program.getOptionValueSource(attribute) !== 'cli') continue;
      const why = WHY[`${name} ${flag}`] ?? WHY[flag] ?? 'where it does nothing';
      const hint = (HINTS[`${name} ${flag}`] ?? HINTS[`* ${flag}`])?.(
        program.getOptionValue(attribute),
      );
      throw new UsageError(`${flag} does not apply to pets ${name}, ${why}; nothing was sent`, {
        ...(hint && { hint }),
      });
    }
  });
}

/**
 * Refuses an option given with its own negation (`--protected --no-protected`): commander lets
 * the last one win, silently. Walks every command of the program; call it once they are made.
 */
export function refuseContradictions(program: Command): void {
  const seen = new Map<Command, Set<string>>();
  const visit = (command: Command) => {
    // Each option's attribute counted once: every run makes every command, so this is start-up.
    const names = command.options.map((option) => option.attributeName());
    const count = new Map<string, number>();
    for (const name of names) count.set(name, (count.get(name) ?? 0) + 1);
    command.options.forEach((option, index) => {
      if (count.get(names[index]!)! < 2 || !option.long) return;
      command.on(`option:${option.name()}`, () => {
        const given = seen.get(command) ?? new Set<string>();
        seen.set(command, given.add(option.long!));
      });
    });
    command.commands.forEach(visit);
  };
  visit(program);
  program.hook('preAction', (_program, action) => {
    for (let at: Command | null = action; at; at = at.parent) {
      const given = [...(seen.get(at) ?? [])];
      if (given.length < 2) continue;
      throw new UsageError(`${wordList(given)} contradict each other; nothing was sent or saved`, {
        hint: 'Give one of them.',
      });
    }
  });
}

/**
 * A command's help lists the globals that act for it, and no other (the man page's too):
 * help's own configuration, set on the program (cmd/root.ts).
 */
export function visibleGlobalOptions(this: Help, command: Command): Option[] {
  const all = Help.prototype.visibleGlobalOptions.call(this, command);
  const acting = actingGlobals(commandName(command));
  if (acting === HELP) return all;
  // --version prints the version wherever it is given, as --help prints help.
  return all.filter((option) => option.long === '--version' || acting.includes(option.long ?? ''));
}
