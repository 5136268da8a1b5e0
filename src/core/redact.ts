// Shorter secrets are not looked for: such text also occurs by chance, and pets refuses keys
// this short (config/key-check.ts).
const SHORTEST_SECRET = 8;

/**
 * Every secret a run holds: the API key, a proxy's credentials, a store's password. Whatever
 * part of pets learns a secret adds it here, and every path to output, errors, the --debug
 * trace, the journal and state files redacts through it (see `redact`).
 */
export class Secrets implements Iterable<string> {
  private readonly values = new Set<string>();

  /** Adds a secret; undefined, empty and too short values are ignored (see `redact`). */
  add(secret: string | undefined): this {
    if (secret) this.values.add(secret);
    return this;
  }

  get size(): number {
    return this.values.size;
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
 * Characters that print as nothing and terminal colour codes, which a server or a terminal
 * escape may put between the characters of an echoed secret: zero-width spaces and joiners,
 * the word joiner, the soft hyphen and the BOM, and `ESC[…m`, each as the character itself,
 * JSON-escaped (as escapeForTerminal and --json show them), as `\xNN` or as an HTML entity.
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
  ].join('|'),
  'gi',
);
const HAS_FILLER = new RegExp(FILLER.source, 'i');

/** A secret's compiled forms: the pattern of every encoding, and what it takes to be there. */
interface Forms {
  pattern: RegExp;
  /** The forms with no marker character (`\\ % & +`), in lower case. */
  plain: string[];
}

/** Every form but the plain ones holds one of these. */
const MARKER = /[\\%&+]/;

const compiled = new Map<string, Forms>();

/**
 * Replaces every secret with *** so that no path can print one, also where a server or a
 * gateway echoes it back in an encoding of its own, in any letter case:
 * - each character as itself, JSON-escaped (`\/`, `\"`, `\\`, or `\u002f`, escaped again
 *   inside a JSON string), percent-encoded (again as `%252F`), `+` for a space, `\xNN` for
 *   each UTF-8 byte, or an HTML entity (`&#47;`, `&#x2F;`, `&sol;`, escaped again as
 *   `&amp;#47;`);
 * - the whole secret, or "Bearer <secret>", in base64 or base64url at each of the three
 *   alignments it can have inside longer encoded text, or as hex;
 * - any of these with zero-width characters or colour codes between its characters.
 * Every line that can carry server text goes through here: top-level errors, the client's
 * error messages, the rate-limit state, the --debug trace, and all of a run's stdout and stderr.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= SHORTEST_SECRET && result.includes(secret)) {
      result = result.split(secret).join('***');
    }
  }
  // Look in the text without its fillers, then replace the same span of the text as it is.
  const { visible, kept } = HAS_FILLER.test(result) ? withoutFillers(result) : { visible: result };
  const patterns: RegExp[] = [];
  let lower: string | null | undefined;
  for (const secret of secrets) {
    if (secret.length < SHORTEST_SECRET) continue;
    const forms = formsOf(secret);
    // Most text holds no form of the secret, and is spared the pattern: it cannot without a
    // marker or a plain form, which a search of the text in lower case finds (in about the
    // time the secret as it is was looked for above).
    lower ??= MARKER.test(visible) ? null : visible.toLowerCase();
    if (lower === null || forms.plain.some((form) => lower!.includes(form))) {
      patterns.push(forms.pattern);
    }
  }
  if (!patterns.length) return result;
  if (!kept) {
    for (const pattern of patterns) result = result.replace(pattern, '***');
    return result;
  }
  const spans: Array<[number, number]> = [];
  for (const pattern of patterns) {
    for (const match of visible.matchAll(pattern)) {
      spans.push([kept[match.index]!, kept[match.index + match[0].length - 1]! + 1]);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  let redacted = '';
  let end = 0;
  for (const [start, stop] of spans) {
    if (start >= end) redacted += `${result.slice(end, start)}***`;
    end = Math.max(end, stop);
  }
  return redacted + result.slice(end);
}

/** `text` without its fillers, and where each of its characters is in `text`. */
function withoutFillers(text: string): { visible: string; kept: number[] } {
  const kept: number[] = [];
  let visible = '';
  let from = 0;
  for (const filler of text.matchAll(FILLER)) {
    for (let i = from; i < filler.index; i++) kept.push(i);
    visible += text.slice(from, filler.index);
    from = filler.index + filler[0].length;
  }
  for (let i = from; i < text.length; i++) kept.push(i);
  return { visible: visible + text.slice(from), kept };
}

function formsOf(secret: string): Forms {
  let forms = compiled.get(secret);
  if (forms) return forms;
  const { base64, hex } = wholeEncodings(secret);
  const alternatives = [
    // A base64 form takes its last, partial character and the padding with it.
    ...base64.map((form) => `${escapeRegExp(form)}[a-z0-9+/_-]?={0,2}`),
    ...hex,
    [...secret].map(anyEncoding).join(''),
  ];
  forms = {
    pattern: new RegExp(alternatives.join('|'), 'gi'),
    plain: [secret, ...base64, ...hex].map((form) => form.toLowerCase()),
  };
  compiled.set(secret, forms);
  return forms;
}

/**
 * The encodings of the secret as a whole, each longest first: base64 and base64url of
 * "Bearer <secret>" and of the secret alone, at each of the three byte alignments it can have
 * in a longer text (only the characters made of the secret's own bits, which do not change
 * with what surrounds it), and hex.
 */
function wholeEncodings(secret: string): { base64: string[]; hex: string[] } {
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = new Set<string>();
  const hex: string[] = [];
  for (const plain of [Buffer.concat([Buffer.from('Bearer '), bytes]), bytes]) {
    for (const offset of [0, 1, 2]) {
      const encoded = Buffer.concat([Buffer.alloc(offset), plain]).toString('base64');
      const core = encoded.slice(
        Math.ceil((offset * 8) / 6),
        Math.floor(((offset + plain.length) * 8) / 6),
      );
      base64.add(core);
      base64.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
    hex.push(plain.toString('hex'));
  }
  return { base64: [...base64].sort((a, b) => b.length - a.length), hex };
}

/** A regular expression for `char` in any of the encodings above. */
function anyEncoding(char: string): string {
  const ways = [escapeRegExp(char)];
  const codePoint = char.codePointAt(0)!;
  const utf8 = [...Buffer.from(char, 'utf8')];
  // JSON: \uXXXX for each UTF-16 unit, after one or more backslashes.
  ways.push(
    [...Array(char.length).keys()].map((i) => `\\\\+u${hexDigits(char.charCodeAt(i), 4)}`).join(''),
  );
  if (char === '"' || char === '\\' || char === '/') ways.push(`\\\\+\\${char}`);
  // Percent-encoding: each UTF-8 byte, its % itself encoded any number of times.
  ways.push(utf8.map((byte) => `%(?:25)*${hexDigits(byte, 2)}`).join(''));
  // A C-style string: \xNN for each UTF-8 byte.
  ways.push(utf8.map((byte) => `\\\\+x${hexDigits(byte, 2)}`).join(''));
  // HTML: a numeric entity in decimal or hex, or a named one; its & itself escaped any number
  // of times.
  ways.push(`&(?:amp;)*#(?:0*${codePoint}|x0*${codePoint.toString(16)});?`);
  const name = ENTITY_NAMES[char];
  if (name) ways.push(`&(?:amp;)*${name};`);
  if (char === ' ') ways.push('\\+');
  return `(?:${ways.join('|')})`;
}

/** The named entities HTML escapers use for characters a key may hold. */
const ENTITY_NAMES: Record<string, string> = {
  '&': 'amp',
  '<': 'lt',
  '>': 'gt',
  '"': 'quot',
  "'": 'apos',
  '/': 'sol',
  '=': 'equals',
  '+': 'plus',
  '%': 'percnt',
  _: 'lowbar',
  '.': 'period',
  ':': 'colon',
  ';': 'semi',
};

/** `value` in at least `width` hex digits (the patterns ignore letter case). */
function hexDigits(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
