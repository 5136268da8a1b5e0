import { describe, expect, it } from 'vitest';
import { redact } from '../../src/core/redact.js';

const KEY = 'sk_live/a<b>&"c"\\d e';

describe('redact', () => {
  it.each([
    ['as it is', KEY],
    ['JSON-escaped', JSON.stringify(KEY).slice(1, -1)],
    ['with \\/', JSON.stringify(KEY).slice(1, -1).replace(/\//g, '\\/')],
    ['with \\u003C and \\u003e', 'sk_live\\/a\\u003Cb\\u003e\\u0026\\"c\\"\\\\d e'],
    ['escaped twice', JSON.stringify(JSON.stringify(KEY).slice(1, -1)).slice(1, -1)],
    ['percent-encoded', encodeURIComponent(KEY)],
    ['percent-encoded in lower case', encodeURIComponent(KEY).toLowerCase()],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(KEY))],
    ['form-encoded, + for a space', new URLSearchParams({ k: KEY }).toString().slice(2)],
  ])('replaces the key written %s', (_how, written) => {
    expect(redact(`before ${written} after`, [KEY])).toBe('before *** after');
  });

  it('leaves text that only resembles the key, and keys too short to tell apart', () => {
    expect(redact('sk_live/a<b>&"c"\\d', [KEY])).toBe('sk_live/a<b>&"c"\\d');
    expect(redact('%2f and \\u002f', ['/'])).toBe('%2f and \\u002f');
    expect(redact('an abc in a sentence', ['abc'])).toBe('an abc in a sentence');
  });
});
