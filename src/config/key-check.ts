// A key travels in the Authorization header, which carries visible ASCII only. Anything else
// (a pasted CR, Cyrillic, a non-breaking space) fails inside undici before a byte is sent, so
// it is refused where the key is given instead, without naming the character: it is a secret.
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** Why `key` cannot be an API key, or undefined when it can. */
export function keyProblem(key: string): string | undefined {
  if (VISIBLE_ASCII.test(key)) return undefined;
  const at = [...key].findIndex((ch) => !VISIBLE_ASCII.test(ch));
  return `has a character that is not visible ASCII (character ${at + 1}); a key is letters, digits and punctuation, without spaces`;
}
