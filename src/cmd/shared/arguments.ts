import { InvalidArgumentError, Option } from 'commander';
import { LIST_LIMIT, PET_STATUSES, parseInt64, type PetStatus } from '../../api/contract.js';

// Parsers for commander: a bad value fails before anything is sent, naming what is allowed.

export function parseLimit(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < LIST_LIMIT.min || value > LIST_LIMIT.max) {
    throw new InvalidArgumentError(
      `It must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}.`,
    );
  }
  return value;
}

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

export function parseSeconds(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0 || value > 86_400) {
    throw new InvalidArgumentError('It must be a number of seconds above 0 and at most 86400.');
  }
  return value;
}

export function parseNonNegativeSeconds(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 86_400) {
    throw new InvalidArgumentError('It must be a number of seconds from 0 to 86400.');
  }
  return value;
}

export function parsePort(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65_535)
    throw new InvalidArgumentError('It must be a port from 0 to 65535.');
  return value;
}

export function parsePositiveInteger(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError('It must be a whole number above 0.');
  }
  return value;
}

export function parseCount(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 100_000)
    throw new InvalidArgumentError('It must be a whole number from 0 to 100000.');
  return value;
}
