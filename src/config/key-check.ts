// A key travels in the Authorization header, which carries visible ASCII only. Anything else
// (a pasted CR, Cyrillic, a non-breaking space) fails inside undici before a byte is sent, so
// it is refused where the key is given instead, without naming the character: it is a secret.
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The shortest key pets takes. Output, errors, traces, journals and state files have the key
 * redacted wherever it appears (core/redact.ts); text as short as `abc` also occurs in words,
 * numbers and JSON, so it could neither be redacted reliably nor told apart from them.
 */
export const MIN_KEY_LENGTH = 8;

/**
 * The longest key pets takes. Servers refuse a request whose headers are too large (431):
 * nginx reads header lines of up to 8 KiB, some gateways 4 KiB. No API key is that long; a
 * longer one is a paste gone wrong, which pets would otherwise save and send every time.
 */
export const MAX_KEY_LENGTH = 4096;

/** Why `key` cannot be an API key, or undefined when it can. */
export function keyProblem(key: string): string | undefined {
  if (!VISIBLE_ASCII.test(key)) {
    const at = [...key].findIndex((ch) => !VISIBLE_ASCII.test(ch));
    return `has a character that is not visible ASCII (character ${at + 1}); a key is letters, digits and punctuation, without spaces`;
  }
  if (key.length < MIN_KEY_LENGTH) {
    return `is ${key.length} characters long, shorter than the ${MIN_KEY_LENGTH} pets accepts: a key that short cannot be kept out of output`;
  }
  if (key.length > MAX_KEY_LENGTH) {
    return `is ${key.length} characters long, longer than the ${MAX_KEY_LENGTH} pets accepts: servers refuse headers that large`;
  }
  return undefined;
}
