// JSON that keeps int64 exact. JSON.parse turns 9007199254740993 into 9007199254740992, so
// integers that are not safe in a double are parsed here as bigint, and bigint is written
// back as bare digits. Node 22's JSON.parse can give a reviver each number's source text,
// but a reviver call per value makes that path slower than this parser.

import { escapeForTerminal } from '../core/terminal-text.js';

export type JsonValue =
  null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

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
const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

// A number that may not fit a double exactly has at least 16 digits in a row.
const LONG_DIGIT_RUN = /\d{16}/;

export interface ParseOptions {
  /**
   * A number written with a fraction or an exponent (1.0, 1e3) becomes NaN, which no integer
   * check accepts: input records take integers as digits only, as flags and CSV do, instead
   * of sending 1e3 as 1000.
   */
  integersAsDigitsOnly?: boolean;
}

// A digit followed by a fraction or an exponent, possibly inside a string: then the careful
// parser looks at each number token.
const FRACTION_OR_EXPONENT = /\d[.eE]/;

/** Parses JSON text; integers outside ±(2^53-1) become bigint. Errors never quote the input. */
export function parseJson(text: string, options: ParseOptions = {}): JsonValue {
  const digitsOnly = options.integersAsDigitsOnly === true;
  // Without a long digit run JSON.parse is exact, and faster. Its errors quote
  // the input, and it has no depth limit, so on a failure or a value nested too deep the
  // careful parser below runs and reports instead, naming only a position.
  if (!LONG_DIGIT_RUN.test(text) && !(digitsOnly && FRACTION_OR_EXPONENT.test(text))) {
    try {
      const value = JSON.parse(text) as JsonValue;
      if (!nestedDeeperThan(value, MAX_DEPTH)) return value;
    } catch {
      // fall through to the careful parser, for an error that names only a position
    }
  }
  return parseCarefully(text, digitsOnly);
}

/** Whether arrays and objects nest more than `levels` deep in `value`. */
function nestedDeeperThan(value: JsonValue, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) return value.some((item) => nestedDeeperThan(item, levels - 1));
  for (const key in value) if (nestedDeeperThan(value[key] as JsonValue, levels - 1)) return true;
  return false;
}

function parseCarefully(text: string, digitsOnly: boolean): JsonValue {
  let pos = 0;

  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${pos}`, pos);
  };

  const skipWhitespace = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      pos++;
    }
  };

  const parseValue = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    skipWhitespace();
    const c = text[pos];
    if (c === '{') return parseObject(depth);
    if (c === '[') return parseArray(depth);
    if (c === '"') return parseString();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return parseNumber();
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return value;
      }
    }
    return fail(c === undefined ? 'unexpected end of input' : 'unexpected character');
  };

  const parseObject = (depth: number): JsonValue => {
    const result: { [key: string]: JsonValue } = {};
    pos++;
    skipWhitespace();
    if (text[pos] === '}') return (pos++, result);
    for (;;) {
      skipWhitespace();
      if (text[pos] !== '"') fail('expected a property name');
      const key = parseString();
      skipWhitespace();
      if (text[pos] !== ':') fail("expected ':'");
      pos++;
      // defineProperty keeps a "__proto__" key as data instead of changing the prototype.
      Object.defineProperty(result, key, {
        value: parseValue(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      skipWhitespace();
      const next = text[pos++];
      if (next === '}') return result;
      if (next !== ',') fail("expected ',' or '}'");
    }
  };

  const parseArray = (depth: number): JsonValue => {
    const result: JsonValue[] = [];
    pos++;
    skipWhitespace();
    if (text[pos] === ']') return (pos++, result);
    for (;;) {
      result.push(parseValue(depth + 1));
      skipWhitespace();
      const next = text[pos++];
      if (next === ']') return result;
      if (next !== ',') fail("expected ',' or ']'");
    }
  };

  // Finds the closing quote, then lets JSON.parse decode the escapes of that one token.
  const parseString = (): string => {
    const start = pos++;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c)) fail('unterminated string');
      if (c < 0x20) fail('control character in string');
      pos += c === 0x5c ? 2 : 1;
      if (c === 0x22) break;
    }
    try {
      return JSON.parse(text.slice(start, pos)) as string;
    } catch {
      pos = start;
      return fail('invalid escape in string');
    }
  };

  const parseNumber = (): number | bigint => {
    NUMBER_TOKEN.lastIndex = pos;
    const match = NUMBER_TOKEN.exec(text);
    if (!match) return fail('invalid number');
    const [token, fraction, exponent] = match;
    pos += token.length;
    if (fraction !== undefined || exponent !== undefined) return digitsOnly ? NaN : Number(token);
    const asNumber = Number(token);
    return Number.isSafeInteger(asNumber) ? asNumber : BigInt(token);
  };

  const value = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) fail('unexpected data after the JSON value');
  return value;
}

const LITERALS: ReadonlyArray<readonly [string, JsonValue]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];

// JSON.stringify leaves raw some characters a terminal or editor would act on: DEL, C1
// controls, bidi controls, the JavaScript line separators, and those that print as nothing.
function quote(text: string): string {
  return escapeForTerminal(JSON.stringify(text));
}

// A batch writes the same few keys hundreds of thousands of times; quote each once.
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 256;

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = quote(key);
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * Serialises like JSON.stringify (undefined members are dropped), writing bigint as bare
 * digits and escaping control and bidi characters, so the output is exact JSON that is also
 * safe to print on a terminal.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  const write = (v: unknown, depth: string): string | undefined => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'string':
        return quote(v);
      case 'bigint':
        return v.toString();
      case 'number':
        return Number.isFinite(v) ? String(v) : 'null';
      case 'boolean':
        return String(v);
      case 'object': {
        const inner = depth + pad;
        const open = indent ? `\n${inner}` : '';
        const close = indent ? `\n${depth}` : '';
        const sep = indent ? `,\n${inner}` : ',';
        if (Array.isArray(v)) {
          if (v.length === 0) return '[]';
          return `[${open}${v.map((item) => write(item, inner) ?? 'null').join(sep)}${close}]`;
        }
        const members: string[] = [];
        for (const [key, member] of Object.entries(v)) {
          const written = write(member, inner);
          if (written !== undefined)
            members.push(`${quoteKey(key)}:${indent ? ' ' : ''}${written}`);
        }
        return members.length ? `{${open}${members.join(sep)}${close}}` : '{}';
      }
      default:
        return undefined;
    }
  };
  return write(value, '') ?? 'null';
}
