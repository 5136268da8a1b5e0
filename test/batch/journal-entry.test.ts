import { describe, expect, it } from 'vitest';
import { scanEntry } from '../../src/batch/journal-entry.js';
import { parseJson, stringifyJson } from '../../src/json/int64-json.js';
import { seededRandom } from '../ratelimit/simulation.js';

const CASES = 20_000;

// Characters a record name could hold, including those JSON or the journal's writer escape.
const ALPHABET = [
  ...'0123456789abcdef.',
  ...'ABCxyz-_ ',
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  'é',
  '€',
  '😀',
  '\u2028',
  '\u202e',
  '\ud800',
];

function generator(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const name = (): string => {
    if (random() < 0.5) {
      const hex = Array.from({ length: 16 }, () => pick([...'0123456789abcdef'])).join('');
      return `${hex}.${Math.floor(random() * 5)}`;
    }
    return Array.from({ length: Math.floor(random() * 12) }, () => pick(ALPHABET)).join('');
  };
  const integer = (): number | bigint => {
    switch (Math.floor(random() * 6)) {
      case 0:
        return Math.floor(random() * 1_000);
      case 1:
        return -Math.floor(random() * 1_000_000);
      case 2:
        return Number.MAX_SAFE_INTEGER - Math.floor(random() * 3);
      case 3:
        return 9_007_199_254_740_991n + BigInt(Math.floor(random() * 5));
      case 4:
        return -(2n ** 63n) + BigInt(Math.floor(random() * 1_000));
      default:
        return BigInt(Math.floor(random() * 2 ** 53)) * 1_000_000n;
    }
  };
  // The lines the journal writes, through its own writer.
  const entry = (): string =>
    random() < 0.5
      ? stringifyJson({ i: name(), line: integer() })
      : stringifyJson({ o: name(), line: integer(), outcome: 'created', id: integer() });
  const mutate = (text: string): string => {
    const at = Math.floor(random() * (text.length + 1));
    switch (Math.floor(random() * 3)) {
      case 0:
        return text.slice(0, at) + text.slice(at + 1);
      case 1:
        return text.slice(0, at) + pick([...' ,:{}[]"\\0123.e-+x', '\u00e9']) + text.slice(at);
      default:
        return text.slice(0, at) + pick([...'0-9ex"\\ ']) + text.slice(at + 1);
    }
  };
  return { entry, mutate, random };
}

/** What replay read before the scanner: parseJson's value, or undefined where it threw. */
function parsed(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

describe('scanEntry', () => {
  it('gives what parseJson gives for every intent and created outcome the journal writes', () => {
    const { entry } = generator(12);
    let scanned = 0;
    for (let n = 0; n < CASES; n++) {
      const text = entry();
      const value = scanEntry(text);
      if (value === undefined) {
        // Only escapes send a written entry to the full parser.
        expect(text).toMatch(/\\/);
        continue;
      }
      scanned++;
      expect(value).toStrictEqual(parsed(text));
    }
    // Most entries take the fast path: it is not a parser that gives up on everything.
    expect(scanned).toBeGreaterThan(CASES * 0.6);
  });

  it('never reads a line differently from parseJson, however it is mangled', () => {
    const { entry, mutate, random } = generator(34);
    for (let n = 0; n < CASES; n++) {
      let text = entry();
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) text = mutate(text);
      const value = scanEntry(text);
      if (value !== undefined) expect(value).toStrictEqual(parsed(text));
    }
  });

  it('rejects every torn prefix of an entry, as parseJson does', () => {
    const { entry } = generator(56);
    for (let n = 0; n < 500; n++) {
      const text = entry();
      for (let end = 0; end < text.length; end++) {
        expect(scanEntry(text.slice(0, end))).toBeUndefined();
        expect(parsed(text.slice(0, end))).toBeUndefined();
      }
    }
  });

  it('leaves every other entry to parseJson', () => {
    const others = [
      '{"journal":2,"origin":"http://x","key":"abc","profile":"p"}',
      stringifyJson({ o: 'a.0', line: 1, outcome: 'unknown', error: { code: 'x' } }),
      stringifyJson({ o: 'a.0', line: 1, outcome: 'failed', retryable: true }),
      stringifyJson({ o: 'a.0', line: 1, outcome: 'created', id: 5, extra: 1 }),
      '{"i":"a.0","line":1} ',
      '{"i":"a.0", "line":1}',
      '{"line":1,"i":"a.0"}',
      '{"i":"a.0","line":1.5}',
      '{"i":"a.0","line":1e3}',
      '{"i":"a.0","line":01}',
      '{"i":"a.0","line":-}',
      '{"o":"a.0","line":1,"outcome":"created","id":7}x',
      '{"i":"a\\u002e0","line":1}',
      '',
    ];
    for (const text of others) expect(scanEntry(text)).toBeUndefined();
  });
});
