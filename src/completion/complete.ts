import type { Argument, Command, Option } from 'commander';

// Shell completion is worked out here, from the commander definitions, so there is one
// completion logic for bash, zsh and fish: the scripts (scripts.ts) only hand the words to
// `pets __complete` and show what it prints. No completion library (@bomb.sh/tab,
// @pnpm/tabtab, omelette): the design card fixes the dependencies to commander, undici,
// cli-table3, chalk, conf and vitest.

export interface Candidate {
  value: string;
  description?: string;
}

export interface CompletionSources {
  /** Profile names from the config; asked only when a profile name is being completed. */
  profiles(): readonly string[];
  /** The topics of `pets help` that are not commands. */
  helpTopics: readonly string[];
}

/** Commands whose first argument is a profile name, by path. */
const PROFILE_ARGUMENTS = new Set(['profile show', 'profile use', 'profile set', 'profile remove']);

/** Where the words before the one being completed leave us. */
interface Position {
  /** The program, then each command named so far. */
  chain: Command[];
  /** Arguments given to the last command of the chain so far. */
  operands: string[];
  /** Options given so far, to offer each only once. */
  used: Set<Option>;
  /** After `--` every word is an argument. */
  afterDashDash: boolean;
}

/**
 * The candidates for the last of `words` (the words after `pets`; the last one is being
 * typed and may be ''), filtered by what is typed. Nothing when the words cannot be parsed
 * (an unknown command), or when only the shell can help (file names, free text).
 */
export function complete(
  program: Command,
  words: readonly string[],
  sources: CompletionSources,
): Candidate[] {
  const current = words.at(-1) ?? '';
  const position: Position = {
    chain: [program],
    operands: [],
    used: new Set(),
    afterDashDash: false,
  };
  const before = words.slice(0, -1);
  for (let i = 0; i < before.length; i++) {
    const word = before[i] as string;
    const command = position.chain.at(-1) as Command;
    if (!position.afterDashDash && word === '--') {
      position.afterDashDash = true;
    } else if (!position.afterDashDash && isOptionLike(word)) {
      const found = findOption(position.chain, word);
      if (!found) continue;
      position.used.add(found.option);
      if (found.inlineValue !== undefined || !takesNextWord(found.option, before[i + 1])) continue;
      if (i + 1 < before.length) {
        i++;
      } else if (found.option.required || valuesOf(found.option, sources).length > 0) {
        return matching(valuesOf(found.option, sources), current);
      }
    } else if (position.operands.length === 0 && command.commands.length > 0) {
      const sub = findCommand(command, word);
      if (!sub) return [];
      position.chain.push(sub);
    } else {
      position.operands.push(word);
    }
  }

  const command = position.chain.at(-1) as Command;
  if (!position.afterDashDash && current.startsWith('-')) {
    const equals = current.indexOf('=');
    if (current.startsWith('--') && equals > 0) {
      const found = findOption(position.chain, current.slice(0, equals));
      if (!found || found.option.isBoolean()) return [];
      const flag = current.slice(0, equals + 1);
      return matching(valuesOf(found.option, sources), current.slice(equals + 1)).map((c) => ({
        value: flag + c.value,
      }));
    }
    return flagCandidates(position).filter((c) => c.value.startsWith(current));
  }
  if (position.operands.length === 0 && command.commands.length > 0) {
    return commandCandidates(command).filter((c) => c.value.startsWith(current));
  }
  const values = argumentValues(position, sources);
  if (values) return matching(values, current);
  if (
    current === '' &&
    !position.afterDashDash &&
    argumentAt(command, position.operands.length) === undefined
  ) {
    return flagCandidates(position);
  }
  return [];
}

function isOptionLike(word: string): boolean {
  return word.length > 1 && word.startsWith('-');
}

/** The option a word names, looked up from the innermost command out, as commander does. */
function findOption(
  chain: readonly Command[],
  word: string,
): { option: Option; inlineValue?: string } | undefined {
  const equals = word.indexOf('=');
  const flag = word.startsWith('--') && equals > 0 ? word.slice(0, equals) : word;
  for (const command of [...chain].reverse()) {
    for (const option of allOptions(command)) {
      if (option.long === flag || option.short === flag) {
        return flag === word ? { option } : { option, inlineValue: word.slice(equals + 1) };
      }
      // -xVALUE: a short option with its value in the same word.
      if (!word.startsWith('--') && option.short === word.slice(0, 2) && !option.isBoolean()) {
        return { option, inlineValue: word.slice(2) };
      }
    }
  }
  return undefined;
}

/** Every option a command parses: its own, hidden ones included, and its help option. */
function allOptions(command: Command): Option[] {
  const visible = command.createHelp().visibleOptions(command);
  return [...command.options, ...visible.filter((option) => !command.options.includes(option))];
}

/** Commander takes the next word as the value of a required option-argument, whatever it is. */
function takesNextWord(option: Option, next: string | undefined): boolean {
  if (option.required) return true;
  return option.optional && (next === undefined || !isOptionLike(next));
}

/**
 * Values of an option-argument: its commander `.choices()`, or profile names for --profile.
 * Any other completes to nothing, which lets the shell offer file names: --file, --journal.
 */
function valuesOf(option: Option, sources: CompletionSources): readonly string[] {
  return option.argChoices ?? (option.long === '--profile' ? sources.profiles() : []);
}

function findCommand(parent: Command, name: string): Command | undefined {
  return (
    parent.commands.find((sub) => sub.name() === name || sub.aliases().includes(name)) ??
    parent
      .createHelp()
      .visibleCommands(parent)
      .find((sub) => sub.name() === name)
  );
}

function commandCandidates(parent: Command): Candidate[] {
  return parent
    .createHelp()
    .visibleCommands(parent)
    .map((sub) => candidate(sub.name(), sub.summary() || sub.description()));
}

/** The values the next argument of the command may take, or undefined when they are open. */
function argumentValues(
  { chain, operands }: Position,
  sources: CompletionSources,
): readonly string[] | undefined {
  const [parent, command] = chain.slice(-2);
  if (!parent || !command) return undefined;
  // `help [command...]`, commander's own or one of ours: the commands below its parent.
  if (command.name() === 'help') return helpTargets(parent, operands, sources.helpTopics);
  const argument = argumentAt(command, operands.length);
  if (argument?.argChoices) return argument.argChoices;
  const path = chain.slice(1).map((c) => c.name());
  if (operands.length === 0 && PROFILE_ARGUMENTS.has(path.join(' '))) return sources.profiles();
  return undefined;
}

function helpTargets(
  parent: Command,
  words: readonly string[],
  topics: readonly string[],
): string[] {
  let command: Command | undefined = parent;
  for (const word of words) {
    command = findCommand(command, word);
    if (!command) return [];
  }
  const commands = commandCandidates(command)
    .map((c) => c.value)
    .filter((name) => name !== 'help');
  return words.length === 0 ? [...commands, ...topics] : commands;
}

function argumentAt(command: Command, index: number): Argument | undefined {
  const args = command.registeredArguments;
  const last = args.at(-1);
  return args[index] ?? (last?.variadic ? last : undefined);
}

/**
 * The flags of the command, then the global options its help lists: those that act for it
 * (the program's help configuration filters them), since the others are refused there.
 */
function flagCandidates({ chain, used }: Position): Candidate[] {
  const seen = new Set<string>();
  const result: Candidate[] = [];
  const command = chain.at(-1) as Command;
  const help = command.createHelp();
  const options = [...help.visibleOptions(command), ...help.visibleGlobalOptions(command)];
  for (const option of options) {
    if (!option.variadic && wasGiven(option, chain, used)) continue;
    for (const flag of [option.long, option.short]) {
      if (flag && !seen.has(flag)) {
        seen.add(flag);
        const choices = option.argChoices ? ` (${option.argChoices.join(', ')})` : '';
        result.push(candidate(flag, `${option.description}${choices}`));
      }
    }
  }
  return result;
}

/** Given already, itself or its other half (--save-profile and --no-save-profile). */
function wasGiven(option: Option, chain: readonly Command[], used: ReadonlySet<Option>): boolean {
  const owner = chain.find((command) => command.options.includes(option));
  return [...used].some(
    (other) =>
      other === option ||
      (other.attributeName() === option.attributeName() && owner?.options.includes(other)),
  );
}

function matching(values: readonly string[], typed: string): Candidate[] {
  return [...new Set(values)]
    .filter((value) => value.startsWith(typed))
    .map((value) => ({ value }));
}

function candidate(value: string, description: string | undefined): Candidate {
  return description ? { value, description } : { value };
}

/**
 * One candidate a line, `value` or `value<TAB>description` (fish shows the description as
 * is, zsh through _describe, bash drops it). Values that would break a line are left out.
 */
export function formatCandidates(candidates: readonly Candidate[]): string {
  return candidates
    .filter(({ value }) => value !== '' && !/[\u0000-\u001f\u007f]/.test(value))
    .map(({ value, description }) => {
      const text = description?.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
      return text ? `${value}\t${text}\n` : `${value}\n`;
    })
    .join('');
}
