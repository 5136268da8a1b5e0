import {
  Command,
  CommanderError,
  type AddHelpTextContext,
  type AddHelpTextPosition,
  type Help,
  type HelpContext,
  type Option,
} from 'commander';
import { commandName } from './json-output.js';

/** A command's examples, for `.addHelpText('before', …)`: pets's help shows them after the description. */
export function examples(...lines: string[]): string {
  return `Examples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/**
 * pets's commands: help in gh's order, and usage errors that name the command that failed.
 *
 * Help reads Usage, the description, the examples, the arguments and commands, the command's
 * own options, then the global ones. What a command adds 'before' its help (its examples) is
 * placed after the usage and description instead of above them.
 */
export class PetsCommand extends Command {
  /** The text placed between the description and the lists: the examples. */
  helpLead = '';
  /** The notes after the lists, reflowed to the terminal's width. */
  helpTail = '';

  override createCommand(name?: string): PetsCommand {
    return new PetsCommand(name);
  }

  override addHelpText(
    position: AddHelpTextPosition,
    text: string | ((context: AddHelpTextContext) => string),
  ): this {
    if (typeof text !== 'string' || (position !== 'before' && position !== 'after')) {
      return super.addHelpText(position, text as string);
    }
    if (position === 'before') this.helpLead += text;
    else this.helpTail += text;
    return this;
  }

  /**
   * A noun alone (`pets profile`) asks what it can do, as in gh: its help on stdout, exit 0,
   * where commander would print it on stderr as an error.
   */
  override help(context?: HelpContext | ((str: string) => string)): never {
    if (typeof context === 'object' && context.error && this.parent && this.commands.length > 0) {
      return super.help();
    }
    return super.help(context as HelpContext);
  }

  // Every usage error commander finds goes through here, on the command that found it:
  // the error carries the command line of that command's help (`pets profile use --help`),
  // for the hint main prints.
  override error(message: string, options?: { code?: string; exitCode?: number }): never {
    try {
      super.error(message, options);
    } catch (error) {
      const helpCommand = ['pets', commandName(this), '--help'].filter(Boolean).join(' ');
      if (error instanceof CommanderError) Object.assign(error, { helpCommand });
      throw error;
    }
  }
}

// Narrower than this beside its term, a description goes under it, as wide as the terminal.
const DESCRIPTION_MIN_WIDTH = 30;

/**
 * Notes written as lines of about 90 columns, as wide as the terminal: the lines of a
 * sentence joined, then wrapped. A line that ends a sentence or a clause with a colon ends
 * its paragraph, as does a blank line; an indented line is kept as it is.
 */
function reflow(text: string, width: number, helper: Help): string {
  const lines: string[] = [];
  let paragraph = '';
  const flush = () => {
    if (paragraph) lines.push(helper.boxWrap(paragraph, width));
    paragraph = '';
  };
  for (const line of text.split('\n')) {
    if (line === '' || /^\s/.test(line)) {
      flush();
      lines.push(line);
      continue;
    }
    paragraph = paragraph ? `${paragraph} ${line}` : line;
    if (/[.:]$/.test(line)) flush();
  }
  flush();
  return lines.join('\n');
}

/** Commander's help, in gh's order (see PetsCommand). */
export function formatHelp(cmd: Command, helper: Help): string {
  const termWidth = helper.padWidth(cmd, helper);
  const helpWidth = helper.helpWidth ?? 80;
  helper.minWidthToWrap = DESCRIPTION_MIN_WIDTH;
  const item = (term: string, description: string) =>
    description && helpWidth - termWidth - 4 < DESCRIPTION_MIN_WIDTH
      ? `  ${term}\n${helper.boxWrap(description, helpWidth - 6).replace(/^/gm, '      ')}`
      : helper.formatItem(term, termWidth, description, helper);
  const optionItem = (option: Option) =>
    item(helper.optionTerm(option), helper.optionDescription(option));
  const section = (heading: string, items: string[]) =>
    items.length === 0 ? [] : [heading, ...items, ''];

  const output = [`Usage: ${helper.commandUsage(cmd)}`, ''];
  const description = helper.commandDescription(cmd);
  if (description) output.push(helper.boxWrap(description, helpWidth), '');
  if (cmd instanceof PetsCommand && cmd.helpLead) output.push(cmd.helpLead);

  output.push(
    ...section(
      'Arguments:',
      helper
        .visibleArguments(cmd)
        .map((argument) =>
          item(helper.argumentTerm(argument), helper.argumentDescription(argument)),
        ),
    ),
  );
  const groups = helper.groupItems(
    [...cmd.commands],
    helper.visibleCommands(cmd),
    (sub) => sub.helpGroup() || 'Commands:',
  );
  for (const [heading, commands] of groups) {
    output.push(
      ...section(
        heading,
        commands.map((sub) => item(helper.subcommandTerm(sub), helper.subcommandDescription(sub))),
      ),
    );
  }
  // The program's own options are the global ones.
  const options = helper.visibleOptions(cmd).map(optionItem);
  output.push(...section(cmd.parent ? 'Options:' : 'Global Options:', options));
  if (helper.showGlobalOptions) {
    output.push(...section('Global Options:', helper.visibleGlobalOptions(cmd).map(optionItem)));
  }
  if (cmd instanceof PetsCommand && cmd.helpTail)
    output.push(reflow(cmd.helpTail, helpWidth, helper));
  return output.join('\n');
}
