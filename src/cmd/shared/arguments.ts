import { InvalidArgumentError, Option } from 'commander';
import { LIST_LIMIT, PET_STATUSES, parseInt64, type PetStatus } from '../../api/contract.js';

// Parsers for commander: a bad value fails before anything is sent, naming what is allowed.

/** A parser of numbers from `min` to `max`, `what` they are: digits only, unless `fractions`. */
function numberFrom(min: number, max: number, what: string, fractions = false) {
  return (text: string): number => {
    const value = Number(text);
    const form = fractions ? text.trim() !== '' && Number.isFinite(value) : /^\d+$/.test(text);
    if (form && value >= min && value <= max) return value;
    throw new InvalidArgumentError(`It must be ${what} from ${min} to ${max}.`);
  };
}

export const parseLimit = numberFrom(LIST_LIMIT.min, LIST_LIMIT.max, 'an integer');
/** --timeout: more than 0 (0 would time out every request). */
export const parseSeconds = numberFrom(0.001, 86_400, 'a number of seconds', true);
export const parseNonNegativeSeconds = numberFrom(0, 86_400, 'a number of seconds', true);
export const parsePort = numberFrom(0, 65_535, 'a port');
export const parsePositiveInteger = numberFrom(1, Number.MAX_SAFE_INTEGER, 'a whole number');
export const parseCount = numberFrom(0, 100_000, 'a whole number');

/** A value from `choices`, in any case: `Available` is `available`. */
export function parseChoice<T extends string>(choices: readonly T[], text: string): T {
  const value = text.trim().toLowerCase();
  if (!(choices as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`It must be one of ${choices.join(', ')}.`);
  }
  return value as T;
}

export function parseStatus(text: string): PetStatus {
  return parseChoice(PET_STATUSES, text);
}

/**
 * An option whose values are `choices`: help and completion list them (commander's
 * .choices()), and any case is accepted.
 */
export function choiceOption<T extends string>(
  flags: string,
  description: string,
  choices: readonly T[],
  parse: (text: string) => T = (text) => parseChoice(choices, text),
): Option {
  return new Option(flags, description).choices(choices).argParser(parse);
}

export function parseId(text: string): bigint {
  const value = parseInt64(text.trim());
  if (value === undefined) {
    throw new InvalidArgumentError(
      'It must be an integer within int64 (-9223372036854775808 to 9223372036854775807).',
    );
  }
  return value;
}

export function parseName(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('It must not be empty.');
  return text;
}
