import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';

/** `a`, `a and b`, `a, b and c`. */
export function wordList(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** The long flag of `command`'s option stored as `attribute`, as the user typed it. */
export function flagOf(command: Command, attribute: string): string {
  const option = command.options.find((one) => one.attributeName() === attribute);
  return option?.long ?? option?.short ?? `--${attribute}`;
}

/**
 * Refuses the options of `dependents` that were given while `needed` was not: a flag that
 * only acts along with another is a usage error without it, never silently ignored.
 * `usage` says what the command does without `needed`, as the hint.
 */
export function refuseWithout(
  command: Command,
  needed: string,
  dependents: readonly string[],
  usage: string,
): void {
  const given = (attribute: string) => command.getOptionValueSource(attribute) === 'cli';
  if (given(needed)) return;
  const stray = dependents.filter(given).map((attribute) => flagOf(command, attribute));
  if (stray.length === 0) return;
  throw new UsageError(
    `${wordList(stray)} ${stray.length === 1 ? 'only applies' : 'only apply'} with ${flagOf(command, needed)}; nothing was sent`,
    { hint: usage },
  );
}
