import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  parseId,
  parseLimit,
  parseName,
  parseSeconds,
  parseStatus,
} from '../../../src/cmd/shared/arguments.js';
import { keyHint } from '../../../src/config/key-hint.js';

describe('argument parsers', () => {
  it.each(['1', '20', '100'])('limit %s is accepted', (text) =>
    expect(parseLimit(text)).toBe(Number(text)),
  );
  it.each(['0', '101', '-1', '1.5', 'ten', '', '1e2'])('limit %j is refused', (text) => {
    expect(() => parseLimit(text)).toThrow(InvalidArgumentError);
    expect(() => parseLimit(text)).toThrow(/1 to 100/);
  });

  it.each(['available', 'pending', 'sold'])('status %s is accepted', (text) =>
    expect(parseStatus(text)).toBe(text),
  );
  it.each([
    ['Available', 'available'],
    ['SOLD', 'sold'],
  ])('status %s is accepted in any case, as %s', (text, status) =>
    expect(parseStatus(text)).toBe(status),
  );
  it.each(['lost', ''])('status %j is refused, naming the allowed values', (text) => {
    expect(() => parseStatus(text)).toThrow(/available, pending, sold/);
  });

  it.each([
    ['9007199254740993', 9007199254740993n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['0', 0n],
  ])('id %s is exact', (text, expected) => expect(parseId(text)).toBe(expected));
  it.each(['9223372036854775808', '-9223372036854775809', '1.0', '0x10', 'abc', '', '1e3'])(
    'id %j is refused',
    (text) => {
      expect(() => parseId(text)).toThrow(/int64/);
    },
  );

  it.each(['', '   ', '\t'])('name %j is refused', (text) =>
    expect(() => parseName(text)).toThrow(/empty/),
  );
  it.each(['0', '-1', 'x', ''])('timeout %j is refused', (text) =>
    expect(() => parseSeconds(text)).toThrow(),
  );
});

describe('keyHint', () => {
  it.each([
    [undefined, '(none)'],
    ['short', '****'],
    // Under 12 characters, 4 of them would give too much away: none is shown.
    ['abcdefghijk', '****'],
    ['abcdefghijkl', '****ijkl'],
    ['sk_live_0123456789abcd', '****abcd'],
  ])('%j → %j', (key, expected) => expect(keyHint(key)).toBe(expected));
});
