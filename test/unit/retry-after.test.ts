import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/http/retry-after.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each<[string | undefined, number | undefined]>([
    ['0', 0],
    ['12', 12_000],
    [' 7 ', 7_000],
    ['3600', 3_600_000],
    ['Sat, 21 Nov 2026 12:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 11:59:00 GMT', 0],
    ['Saturday, 21-Nov-26 12:00:30 GMT', undefined],
    [undefined, undefined],
    ['', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['5 seconds', undefined],
    ['99999999999', undefined],
    ['Fri, 31 Dec 2100 00:00:00 GMT', undefined],
    ['Sat, 21 Nov 2026 25:00:00 GMT', undefined],
  ])('%j → %j ms', (header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });
});
