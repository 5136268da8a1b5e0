/**
 * Shorter secrets are looked for only where a URL holds them as its password (`//user:pw@`):
 * elsewhere such text also occurs by chance ("pw" in other words). pets refuses keys this short
 * (config/key-check.ts), but a store's or a proxy's password is the user's choice.
 */
const SHORTEST_SECRET = 8;

/**
 * Every secret a run holds: the API key, a proxy's credentials, a store's password. Whatever
 * part of pets learns a secret adds it here, and every path to output, errors, the --debug
 * trace, the journal and state files redacts through it (see `redact`).
 */
export class Secrets implements Iterable<string> {
  private readonly values = new Set<string>();

  /** Adds a secret; undefined and empty values are ignored, short ones kept for URLs. */
  add(secret: string | undefined): this {
    if (secret) this.values.add(secret);
    return this;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.values[Symbol.iterator]();
  }

  /** `text` with every secret, in any encoding `redact` knows, replaced by ***. */
  redact(text: string): string {
    return this.values.size ? redact(text, this.values) : text;
  }
}

/**
 * How much of a secret's start is a leak when a server or a gateway cuts its echo short ("the
 * key sk_live_5f2e9a7c… is not valid", a log field of 16 characters): 12 characters of the
 * secret, counted in the secret's own characters whatever the encoding (16 characters of base64
 * hold 12 of the key, 12 hold 9).
 * Why 12: the public prefixes of key formats ("sk_live_", "ghp_", "github_pat_") are at most 11
 * characters, so 12 hold at least one character of this secret's own, and ordinary data
 * (names, ids, words) holds 12 given characters of a key only by copying them. Services show
 * fewer on purpose to name a key ("sk_live_…4242"), which is left as it is.
 * The cost, in the safe direction: where a format's fixed part is 12 characters or longer (a
 * JWT's header), another token of that format in the text loses its start to *** too.
 * Only a start: echoes are cut at their end. A secret shorter than 12 is looked for whole.
 */
const SHOWN_PREFIX = 12;

/** Encodings of bytes inside each other that are looked into: base64 of base64, say. */
const MOST_DECODINGS = 2;

/**
 * Characters that print as nothing and terminal colour codes, which a server or a terminal
 * escape may put between the characters of an echoed secret: zero-width spaces and joiners,
 * the word joiner, the soft hyphen and the BOM, and `ESC[…m`, each as the character itself,
 * JSON-escaped (as escapeForTerminal and --json show them), as `\xNN` or as an HTML entity;
 * and quoted-printable's soft line break (`=` at the end of a line, also JSON-escaped).
 * They are taken out before the secret is looked for.
 */
const INVISIBLE_CODES = ['200b', '200c', '200d', '2060', 'feff', 'ad'];
const ESCAPE = String.raw`(?:\x1b|\\u001b|\\x1b|\\033|\\e)`;
const FILLER = new RegExp(
  [
    `[${INVISIBLE_CODES.map((code) => `\\u${code.padStart(4, '0')}`).join('')}]`,
    String.raw`\\u(?:${INVISIBLE_CODES.map((code) => code.padStart(4, '0')).join('|')})`,
    String.raw`&(?:amp;)*#(?:x0*(?:${INVISIBLE_CODES.join('|')})|0*(?:${INVISIBLE_CODES.map((code) => parseInt(code, 16)).join('|')}));`,
    String.raw`&(?:amp;)*(?:zwsp|zwnj|zwj|shy|NoBreak);`,
    String.raw`${ESCAPE}\[[0-9;]*m`,
    String.raw`=(?:\r?\n|(?:\\r)?\\n)`,
  ].join('|'),
  'gi',
);
const HAS_FILLER = new RegExp(FILLER.source, 'i');

/**
 * Bytes as hex with one separator throughout (`73:6b`, `0x73, 0x6b`), or decimal. Each hex
 * byte is followed by no letter or digit: the word after a list (the "af" of " after") is not
 * taken for more of it.
 */
const HEX_LIST =
  /(?:0x)?[0-9a-f]{2}([\s,:;-]{1,2}\s*)(?:0x)?[0-9a-f]{2}(?:\1(?:0x)?[0-9a-f]{2}(?![0-9a-z]))+/giy;
const DECIMAL_LIST = /-?\d{1,3}(?:\s*[,;]\s*-?\d{1,3}|\s+-?\d{1,3})+/y;
const SEPARATOR = /[,:;\s-]/;
/**
 * Which encodings of bytes each character may be part of, by UTF-16 code: of base64 (its
 * escapes and line breaks too, see BASE64_RUN), and of byte lists. All of them ASCII; the
 * table covers every UTF-16 code so that a look needs no bounds check.
 */
const [BASE64, LIST] = [1, 2];
const KIND = new Uint8Array(0x10000);
for (let code = 0; code < 0x80; code++) {
  const char = String.fromCharCode(code);
  KIND[code] =
    (/[\w+/\\%\r\n-]/.test(char) ? BASE64 : 0) | (/[0-9a-fx,:;\s-]/i.test(char) ? LIST : 0);
}
/**
 * A character of base64 or base64url, also JSON-escaped (`\/` as PHP writes `/`, `\u002B` and
 * `\u002F` as .NET writes `+` and `/`, each also escaped again) or percent-encoded as in a URL.
 */
const BASE64_CHAR = String.raw`(?:[\w+/-]|\\+/|\\+u002[bf]|%2[bf])`;
/**
 * A run of base64, wrapped or not: lines of it with CRLF or LF between, real or JSON-escaped
 * (once or more). Any line break joins the lines around it (MIME wraps at 76, PEM at 64, other
 * encoders at any width): joining lines that were not one run costs only a larger span
 * redacted where they hold a secret, and decoding at every alignment finds the secret in
 * either. Padding ends a run: Node's decoder stops there. A run takes in the backslashes before
 * it (taken at once, so that a long row of them costs one look): what follows them may be an
 * escape's letter (`\n`) or the run itself (after `\\`), and neither is left half redacted.
 */
const BASE64_RUN = new RegExp(
  String.raw`(?<!\\)(?=(\\*))\1${BASE64_CHAR}+(?:(?:\r?\n|(?:\\+r)?\\+n)${BASE64_CHAR}+)*={0,2}`,
  'gi',
);
/** Decoded text looked into again: a secret's shortest form is this long. */
const PRINTABLE_RUN = /[\x20-\x7e\t\r\n]{8,}/g;

/** A secret's compiled forms. */
interface Forms {
  /**
   * The secret's first SHOWN_PREFIX characters (a shorter secret whole) and as many of the
   * rest as follow, each character in any of the encodings `anyEncoding` knows.
   */
  pattern: RegExp;
  /**
   * Those first characters in lower case: text that holds neither them nor a MARKER holds no
   * match of `pattern`.
   */
  plain: string;
  /**
   * Those first characters as bytes decode to, read as latin1, in lower case: UTF-8, UTF-16LE
   * and UTF-16BE (as Windows and .NET encode text), and as character codes.
   */
  decoded: string[];
  /** How many bytes those first characters are in UTF-8, the shortest of the encodings. */
  bytes: number;
  /** Whether they are ASCII, as keys are (config/key-check.ts). */
  ascii: boolean;
  /**
   * Whether the secret is shorter than SHORTEST_SECRET, and so looked for only as a URL's
   * password: `pattern` matches the URL's user part too, the password being its one group,
   * and encoded bytes are not decoded to look for it.
   */
  inUrlsOnly: boolean;
}

/** Every per-character form but the character itself holds one of these. */
const MARKER = /[\\%&+=]/;

/** The forms of each secret, compiled once and kept: redaction runs on every write. */
const compiled = new Map<string, Forms>();

/**
 * Replaces every secret with *** so that no path can print one, also where a server or a
 * gateway echoes it back in an encoding of its own, in any letter case, whole or its first
 * SHOWN_PREFIX characters:
 * - each character as itself, JSON-escaped (`\/`, `\"`, `\\`, or `\u002f`, escaped again
 *   inside a JSON string), percent-encoded (again as `%252F`), `+` for a space, `\xNN` or
 *   quoted-printable `=NN` for each UTF-8 byte, or an HTML entity (`&#47;`, `&#x2F;`,
 *   `&sol;`, escaped again as `&amp;#47;`);
 * - its bytes in UTF-8, UTF-16LE or UTF-16BE in any of the encodings of `encodedRuns` (base64
 *   wrapped or not, hex, byte lists), up to MOST_DECODINGS deep (base64 of base64): the whole
 *   encoded run is replaced;
 * - any of these with zero-width characters, colour codes or soft line breaks between its
 *   characters.
 * A secret shorter than SHORTEST_SECRET is taken out only where a URL holds it as its password,
 * in any of the per-character forms.
 * Every line that can carry server text goes through here: top-level errors, the client's
 * error messages and bodies (before the journal or state see them), the --debug trace, and all
 * of a run's stdout and stderr.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  let result = text;
  const forms: Forms[] = [];
  for (const secret of secrets) {
    const secretForms = compiled.get(secret) ?? compileForms(secret);
    compiled.set(secret, secretForms);
    if (!secretForms.inUrlsOnly && result.includes(secret)) {
      result = result.split(secret).join('***');
    }
    forms.push(secretForms);
  }
  const spans = leaks(result, forms, 0);
  if (!spans.length) return result;
  spans.sort((a, b) => a[0] - b[0]);
  let redacted = '';
  let end = 0;
  for (const [start, stop] of spans) {
    if (start >= end) redacted += `${result.slice(end, start)}***`;
    end = Math.max(end, stop);
  }
  return redacted + result.slice(end);
}

/**
 * The spans of `text` (start, end) that hold a secret in any form; `depth` is how many
 * decodings made `text`. Looks in the text without its fillers, and gives the span of the text
 * as it is.
 */
function leaks(text: string, forms: Forms[], depth: number): Array<[number, number]> {
  const { visible, kept } = HAS_FILLER.test(text) ? withoutFillers(text) : { visible: text };
  const spans: Array<[number, number]> = [];
  const found = (start: number, stop: number) =>
    spans.push(kept ? [kept[start]!, kept[stop - 1]! + 1] : [start, stop]);
  // Most text holds no form of a secret, and is spared the pattern: it cannot without a
  // marker or the secret's first characters, which a search in lower case finds.
  const lower = MARKER.test(visible) ? null : visible.toLowerCase();
  for (const form of forms) {
    if (lower !== null && !lower.includes(form.plain)) continue;
    // exec, not matchAll: a clone of the pattern would be compiled again on every write.
    form.pattern.lastIndex = 0;
    for (let match; (match = form.pattern.exec(visible));) {
      const [start, stop] = match.indices?.[1] ?? [match.index, match.index + match[0].length];
      found(start, stop);
    }
  }
  const decoded = forms.filter((form) => !form.inUrlsOnly);
  if (depth < MOST_DECODINGS && decoded.length) {
    const bytes = Math.min(...decoded.map((form) => form.bytes));
    const ascii = decoded.every((form) => form.ascii);
    for (const run of encodedRuns(visible, bytes, ascii)) {
      if (run.decoded.some((bytes) => holds(bytes, forms, depth + 1))) found(run.start, run.stop);
    }
  }
  return spans;
}

/**
 * Whether decoded bytes (as latin1) hold a secret, as they are or encoded once more. Only their
 * printable runs are looked into again: every form of a secret is printable, and bytes that
 * decode from text that is not their encoding (a hex string read as base64) have few.
 */
function holds(bytes: string, forms: Forms[], depth: number): boolean {
  const lower = bytes.toLowerCase();
  if (forms.some((form) => form.decoded.some((start) => lower.includes(start)))) return true;
  for (const [printable] of bytes.matchAll(PRINTABLE_RUN)) {
    if (leaks(printable, forms, depth).length) return true;
  }
  return false;
}

/** A run of text that may be bytes in an encoding, and what it decodes to (as latin1). */
interface EncodedRun {
  start: number;
  stop: number;
  decoded: string[];
}

/**
 * The start and end of the first run of `length` characters or more of `kind` in `text` at or
 * after `from`. Redaction runs on every write, and most text holds no such run: each try looks
 * at the last character a run could have first and goes back, so that a word of 5 letters
 * costs about one look, not 5 (a regular expression for the run costs some 5 times as much).
 */
function runOf(
  text: string,
  kind: number,
  length: number,
  from: number,
): [number, number] | undefined {
  for (let start = from; start + length <= text.length;) {
    let at = start + length - 1;
    while (at >= start && KIND[text.charCodeAt(at)]! & kind) at--;
    if (at < start) {
      let stop = start + length;
      while (stop < text.length && KIND[text.charCodeAt(stop)]! & kind) stop++;
      return [start, stop];
    }
    start = at + 1;
  }
  return undefined;
}

/**
 * The runs of `text` long enough to hold `bytes` bytes in an encoding, each with what it
 * decodes to at each alignment the bytes may have in it (a run may start with text that is not
 * of the encoding, "xc2tf…", or, as hex, half a byte):
 * - base64 or base64url, padded or not, wrapped or not (see BASE64_RUN);
 * - hex, alone or as a list: `73:6b`, `73 6b`, `0x73,0x6b`;
 * - a list of decimal bytes or character codes: `[115,107]`, `115 107`, Java's negative bytes,
 *   also a byte a line (a JSON array pretty-printed).
 */
function encodedRuns(text: string, bytes: number, ascii: boolean): EncodedRun[] {
  const runs: EncodedRun[] = [];
  const shortest = Math.ceil((bytes * 4) / 3);
  for (let from = 0, found; (found = runOf(text, BASE64, shortest, from));) {
    // exec, not matchAll: a clone of the pattern would be compiled again on every write.
    BASE64_RUN.lastIndex = found[0];
    for (let match; BASE64_RUN.lastIndex < found[1] && (match = BASE64_RUN.exec(text));) {
      const decoded = match[0].length >= shortest && decodedRun(match[0], bytes, ascii);
      if (decoded) runs.push({ start: match.index, stop: BASE64_RUN.lastIndex, decoded });
    }
    from = Math.max(found[1], BASE64_RUN.lastIndex);
  }
  // A list may have a byte a line (a JSON array pretty-printed), its line breaks JSON-escaped
  // where it is inside a string: they are spaces between its bytes, as many as they are
  // characters so that a list's span stays the same. (Real ones are separators as they are.)
  const spaced =
    text.includes('\\') && ESCAPED_BREAK.test(text) ? text.replace(ESCAPED_BREAKS, spaces) : text;
  runs.push(...byteLists(spaced, bytes));
  return runs;
}

const ESCAPED_BREAK = /(?<!\\)\\+[rnt]/;
const ESCAPED_BREAKS = new RegExp(ESCAPED_BREAK.source, 'g');
const spaces = (text: string) => ' '.repeat(text.length);

/** What a base64 run decodes to at each alignment, and its hex, if any. */
function decodedRun(run: string, bytes: number, ascii: boolean): string[] | undefined {
  // Base64 of ASCII text, as UTF-8, UTF-16 or base64 again, has a letter in every 4 characters
  // (the first six bits of an ASCII byte are below 32: A to f). Runs of digits, as ids and
  // times are, are not decoded as base64, and as hex only when long enough.
  const letters = !ascii || /[a-z]/i.test(run);
  if (!letters && run.length < bytes * 2) return undefined;
  const clean = run
    .replace(/[\r\n]|\\+[rn]|\\+(?=\/)|^\\+(?!u00)/g, '')
    .replace(/(?:%|\\+u00)2([bf])/gi, (_, hex: string) => (hex.toLowerCase() === 'b' ? '+' : '/'));
  const decoded = letters
    ? [0, 1, 2, 3].map((skip) => Buffer.from(clean.slice(skip), 'base64').toString('latin1'))
    : [];
  // Hex, also where it follows other letters of base64 ("echo_736b…").
  for (const [hex] of clean.matchAll(/[0-9a-f]+/gi)) {
    if (hex.length < bytes * 2) continue;
    decoded.push(...[0, 1].map((skip) => Buffer.from(hex.slice(skip), 'hex').toString('latin1')));
  }
  return decoded;
}

/** Lists of `bytes` bytes or more, hex with a separator or decimal (see `encodedRuns`). */
function byteLists(text: string, bytes: number): EncodedRun[] {
  const lists: EncodedRun[] = [];
  // Two digits a byte at least (what a key holds is from 32 up), and a separator between.
  const shortest = bytes * 3 - 1;
  for (let from = 0, found; (found = runOf(text, LIST, shortest, from)); from = found[1]) {
    for (let at = found[0]; at < found[1]; at++) {
      // A list starts where the run does or after a separator: not inside a hex string.
      if (at > found[0] && !SEPARATOR.test(text[at - 1]!)) continue;
      const list = listAt(text, at);
      if (list && list.decoded[0]!.length >= bytes) {
        lists.push(list);
        at = list.stop - 1;
      }
    }
  }
  return lists;
}

/** The byte list of `text` that starts at `at`, if one does. */
function listAt(text: string, at: number): EncodedRun | undefined {
  HEX_LIST.lastIndex = DECIMAL_LIST.lastIndex = at;
  const hex = HEX_LIST.exec(text);
  const list = hex ?? DECIMAL_LIST.exec(text);
  if (!list) return undefined;
  const decoded = hex
    ? Buffer.from(hex[0].replace(/0x|[^0-9a-f]/gi, ''), 'hex').toString('latin1')
    : // Java writes bytes from 128 up as negative numbers. One by one: a list of a million
      // numbers is more arguments than a call takes.
      list[0]
        .match(/-?\d+/g)!
        .map((n) => String.fromCharCode(+n < 0 ? +n + 256 : +n))
        .join('');
  return { start: at, stop: at + list[0].length, decoded: [decoded] };
}

/** `text` without its fillers, and where each of its characters is in `text`. */
function withoutFillers(text: string): { visible: string; kept: number[] } {
  const removed = new Uint8Array(text.length);
  for (const filler of text.matchAll(FILLER)) {
    removed.fill(1, filler.index, filler.index + filler[0].length);
  }
  const kept = [...removed.keys()].filter((i) => !removed[i]);
  return { visible: text.replace(FILLER, ''), kept };
}

function compileForms(secret: string): Forms {
  const chars = [...secret];
  const encoded = chars.map(anyEncoding);
  if (secret.length < SHORTEST_SECRET) {
    // From the start of the authority (`//`, also `\/\/` in JSON) to the password's `@`.
    return {
      pattern: new RegExp(`/[^\\s/?#@:]*:(${encoded.join('')})@`, 'gid'),
      plain: secret.toLowerCase(),
      decoded: [],
      bytes: Buffer.byteLength(secret),
      ascii: true,
      inUrlsOnly: true,
    };
  }
  const shown = Math.min(chars.length, SHOWN_PREFIX);
  // The whole secret first: its characters' forms are tried in turn until all match. Else its
  // first characters and as many of the rest as follow, each only after the one before it: a
  // start cut short takes each form that matches, an escape before the character itself.
  let rest = '';
  for (let i = chars.length - 1; i >= shown; i--) rest = `(?:${encoded[i]}${rest})?`;
  const start = chars.slice(0, shown).join('');
  const utf16 = Buffer.from(start, 'utf16le');
  return {
    // Never from inside a run of backslashes: a form's `\\+` takes the whole run from its start,
    // and a try from each of n backslashes would cost n² (a hostile echo of 40,000 took 8 s).
    pattern: new RegExp(
      `(?!(?<=\\\\)\\\\)(?:${encoded.join('')}|${encoded.slice(0, shown).join('')}${rest})`,
      'gi',
    ),
    plain: start.toLowerCase(),
    decoded: [
      Buffer.from(start, 'utf8').toString('latin1'),
      utf16.toString('latin1'),
      Buffer.from(utf16).swap16().toString('latin1'),
      start,
    ].map((form) => form.toLowerCase()),
    bytes: Buffer.byteLength(start),
    ascii: Buffer.byteLength(start) === start.length,
    inUrlsOnly: false,
  };
}

/** A regular expression for `char` in any of the encodings above. */
function anyEncoding(char: string): string {
  const ways: string[] = [];
  const codePoint = char.codePointAt(0)!;
  const utf8 = [...Buffer.from(char, 'utf8')];
  // JSON: \uXXXX for each UTF-16 unit, after one or more backslashes.
  ways.push(
    [...Array(char.length).keys()].map((i) => `\\\\+u${hexDigits(char.charCodeAt(i), 4)}`).join(''),
  );
  if (char === '"' || char === '\\' || char === '/') ways.push(`\\\\+\\${char}`);
  // Percent-encoding: each UTF-8 byte, its % itself encoded any number of times.
  ways.push(utf8.map((byte) => `%(?:25)*${hexDigits(byte, 2)}`).join(''));
  // A C-style string: \xNN for each UTF-8 byte; quoted-printable: =NN.
  ways.push(utf8.map((byte) => `\\\\+x${hexDigits(byte, 2)}`).join(''));
  ways.push(utf8.map((byte) => `=${hexDigits(byte, 2)}`).join(''));
  // HTML: a numeric entity in decimal or hex, or a named one; its & itself escaped any number
  // of times.
  ways.push(`&(?:amp;)*#(?:0*${codePoint}|x0*${codePoint.toString(16)});?`);
  const name = ENTITY_NAMES[ENTITY_CHARS.indexOf(char)];
  if (name) ways.push(`&(?:amp;)*${name};`);
  if (char === ' ') ways.push('\\+');
  return `(?:${[...ways, escapeRegExp(char)].join('|')})`;
}

/** The named entities HTML escapers use for characters a key may hold, each for its character. */
const ENTITY_CHARS = `&<>"'/=+%_.:;`;
const ENTITY_NAMES = 'amp lt gt quot apos sol equals plus percnt lowbar period colon semi'.split(
  ' ',
);

/** `value` in at least `width` hex digits (the patterns ignore letter case). */
function hexDigits(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
