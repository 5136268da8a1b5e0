// JSON that keeps int64 exact. JSON.parse turns 9007199254740993 into 9007199254740992, so
// integers that are not safe in a double become bigint, read from their source text (the
// reviver's context.source, Node 22.19+), and bigint is written back as bare digits
// (JSON.rawJSON). Errors never quote the input, and nesting is limited.

import { escapeForTerminal } from '../core/terminal-text.js';

export type JsonValue =
  null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

// Node 22.19+ (package.json's engines); TypeScript's ES2023 library does not know them yet.
// `source`: the text of a primitive value.
type Reviver = (key: string, value: unknown, context: { source?: string }) => unknown;
declare global {
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

const MAX_DEPTH = 512;

// A number that may not fit a double exactly has at least 16 digits in a row.
const LONG_DIGIT_RUN = /\d{16}/;
// A digit followed by a fraction or an exponent, possibly inside a string.
const FRACTION_OR_EXPONENT = /\d[.eE]/;

/** Integers outside ±(2^53-1) as bigint, from their digits. */
const exact: Reviver = (_key, value, context) =>
  typeof value === 'number' && !Number.isSafeInteger(value) && isInteger(context.source)
    ? BigInt(context.source)
    : value;

/** As `exact`, and a number with a fraction or an exponent as its text. */
const exactDigitsOnly: Reviver = (key, value, context) =>
  typeof value === 'number' && !isInteger(context.source)
    ? JSON.rawJSON(context.source!)
    : exact(key, value, context);

function isInteger(source: string | undefined): source is string {
  return source !== undefined && !/[.eE]/.test(source);
}

/**
 * Parses JSON text; integers outside ±(2^53-1) become bigint. Errors never quote the input.
 * `integersAsDigitsOnly`: a number written with a fraction or an exponent (1.0, 1e3) is kept as
 * written (a JSON.rawJSON object, which stringifyJson writes back as it was), and no integer
 * check accepts it: an id is digits only, in records read as in answers, as in flags and CSV.
 */
export function parseJson(
  text: string,
  options: { integersAsDigitsOnly?: boolean } = {},
): JsonValue {
  // A reviver is called for every value: only text that may need one pays for it.
  const reviver =
    options.integersAsDigitsOnly && FRACTION_OR_EXPONENT.test(text)
      ? exactDigitsOnly
      : LONG_DIGIT_RUN.test(text)
        ? exact
        : undefined;
  // A reviver walks the value recursively, as do the readers of a value: nesting deep enough
  // would exhaust the stack.
  const tooDeep = deeperAt(text, MAX_DEPTH);
  if (tooDeep !== undefined)
    throw new JsonSyntaxError(`nesting too deep at position ${tooDeep}`, tooDeep);
  try {
    return JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]) as JsonValue;
  } catch (error) {
    throw error instanceof SyntaxError ? syntaxError(text, error) : error;
  }
}

// V8's messages that give a position name the problem before it, and quote nothing.
const AT_POSITION = /^(.*) in JSON at position (\d+)/;

/** JSON.parse's error, without the input V8 quotes in some of its messages. */
function syntaxError(text: string, error: SyntaxError): JsonSyntaxError {
  const named = AT_POSITION.exec(error.message);
  if (named) {
    const [, what = '', position] = named;
    return new JsonSyntaxError(`${what.toLowerCase()} at position ${position}`, Number(position));
  }
  if (error.message.startsWith('Unexpected end')) {
    return new JsonSyntaxError(`unexpected end of input at position ${text.length}`, text.length);
  }
  const at = firstBadCharacter(text);
  return new JsonSyntaxError(`unexpected character at position ${at}`, at);
}

/**
 * Where an unexpected character is, for an error that V8 reports by quoting the input instead
 * of naming a position: the shortest start of `text` that JSON.parse refuses for more than
 * ending too soon ends with it.
 */
function firstBadCharacter(text: string): number {
  let [low, high] = [0, text.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (refusedBeforeItsEnd(text.slice(0, middle + 1))) high = middle;
    else low = middle + 1;
  }
  return low;
}

function refusedBeforeItsEnd(start: string): boolean {
  try {
    JSON.parse(start);
    return false;
  } catch (error) {
    const { message } = error as Error;
    const named = AT_POSITION.exec(message);
    return named ? Number(named[2]) < start.length : !message.startsWith('Unexpected end');
  }
}

/** The position of the first bracket that opens a level deeper than `levels`, if any. */
function deeperAt(text: string, levels: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > levels) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

const writeBigint = (_key: string, value: unknown): unknown =>
  typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value;

/**
 * Serialises like JSON.stringify (undefined members are dropped), writing bigint as bare
 * digits and escaping control and bidi characters, so the output is exact JSON that is also
 * safe to print on a terminal.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  const text = JSON.stringify(value, writeBigint, indent) ?? 'null';
  // JSON.stringify leaves raw some characters a terminal or editor would act on: DEL, C1
  // controls, bidi controls, the JavaScript line separators, and those that print as
  // nothing. They can only be inside strings, where \uXXXX stands for them; the only raw
  // control character outside is the newline between indented lines.
  return indent ? text.split('\n').map(escapeForTerminal).join('\n') : escapeForTerminal(text);
}
