// Shorter secrets are not looked for: such text also occurs by chance, and pets refuses keys
// this short (config/key-check.ts).
const SHORTEST_SECRET = 8;

const patterns = new Map<string, RegExp>();

// A key written in any encoding but as itself holds one of these: most output holds none, and
// is spared building and running the pattern.
const ENCODED = /[\\%+]/;

/**
 * Replaces every known key with *** so that no path can print one, also where a server echoes
 * it back in an encoding of its own. Each character may be written as itself, JSON-escaped
 * (`\/`, `\"`, `\\`, or `\u002f` in either case, as PHP and Go write them, and escaped again
 * inside a JSON string), percent-encoded (in either case, and encoded again as `%252F`), or,
 * for a space, as `+`. Every line that can carry server text goes through here: top-level
 * errors, the client's error messages, the --debug trace, and all of a run's stdout and stderr.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < SHORTEST_SECRET) continue;
    result = result.split(secret).join('***');
    if (!ENCODED.test(result)) continue;
    let pattern = patterns.get(secret);
    if (!pattern) {
      pattern = new RegExp([...secret].map(anyEncoding).join(''), 'g');
      patterns.set(secret, pattern);
    }
    result = result.replace(pattern, '***');
  }
  return result;
}

/** A regular expression for `char` in any of the encodings above. */
function anyEncoding(char: string): string {
  const ways = [char.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')];
  // JSON: \uXXXX for each UTF-16 unit, after one or more backslashes.
  ways.push(
    [...Array(char.length).keys()].map((i) => `\\\\+u${hexDigits(char.charCodeAt(i), 4)}`).join(''),
  );
  if (char === '"' || char === '\\' || char === '/') ways.push(`\\\\+\\${char}`);
  // Percent-encoding: each UTF-8 byte, its % itself encoded any number of times.
  ways.push(
    [...new TextEncoder().encode(char)].map((byte) => `%(?:25)*${hexDigits(byte, 2)}`).join(''),
  );
  if (char === ' ') ways.push('\\+');
  return `(?:${ways.join('|')})`;
}

/** `value` in `width` hex digits, each letter in either case. */
function hexDigits(value: number, width: number): string {
  return [...value.toString(16).padStart(width, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');
}
