import { describe, expect, it } from 'vitest';
import {
  LONGEST_WAIT_MS,
  UNREADABLE_RESET_WAIT_MS,
  parseRetryAfter,
  readRateHeaders,
} from '../../src/ratelimit/rate-headers.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const SOON = String(NOW / 1000 + 30);
const date = (ms: number) => new Date(ms).toUTCString();

function xRateLimit(limit?: string, remaining?: string, reset?: string) {
  return {
    'x-ratelimit-limit': limit,
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
  };
}

describe('parseRetryAfter', () => {
  it.each<[string, number | undefined]>([
    ['0', 0],
    ['12', 12_000],
    [' 7 ', 7_000],
    ['2.5', 3_000],
    ['0.1', 1_000],
    ['3600', 3_600_000],
    ['700000', 700_000_000],
    ['99999999999999999999', LONGEST_WAIT_MS],
    ['Sat, 21 Nov 2026 12:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 11:59:00 GMT', 0],
    ['Fri, 31 Dec 2100 00:00:00 GMT', Date.parse('2100-12-31T00:00:00Z') - NOW],
    ['', undefined],
    ['-5', undefined],
    ['soon', undefined],
    ['5 seconds', undefined],
    ['Saturday, 21-Nov-26 12:00:30 GMT', undefined],
  ])('%j → %j ms: fractions round up, and no value is too large to obey', (text, expected) => {
    expect(parseRetryAfter(text, NOW)).toBe(expected);
  });
});

describe('readRateHeaders', () => {
  it('reads X-RateLimit-*, with Reset on this clock when the Date agrees', () => {
    expect(readRateHeaders({ date: date(NOW), ...xRateLimit('60', '59', SOON) }, NOW)).toEqual({
      clockOffsetMs: 0,
      window: { limit: 60, remaining: 59, resetAtMs: NOW + 30_000 },
    });
  });

  it('takes the largest of several Retry-After values, in a list or repeated', () => {
    expect(readRateHeaders({ 'retry-after': ['1', '30'] }, NOW).retryAfterMs).toBe(30_000);
    expect(readRateHeaders({ 'retry-after': '30, 1' }, NOW).retryAfterMs).toBe(30_000);
    expect(
      readRateHeaders({ 'retry-after': ['Sat, 21 Nov 2026 12:01:00 GMT', '5'] }, NOW).retryAfterMs,
    ).toBe(60_000);
  });

  it('moves Reset and Retry-After onto this clock when the server clock is elsewhere', () => {
    const serverNow = NOW + 3_600_000;
    const read = readRateHeaders(
      {
        date: date(serverNow),
        'retry-after': date(serverNow + 5_000),
        ...xRateLimit('60', '0', String(serverNow / 1000 + 10)),
      },
      NOW,
    );
    expect(read.window?.resetAtMs).toBe(NOW + 10_000);
    expect(read.retryAfterMs).toBe(5_000);
  });

  it('never places Reset earlier than it is: the best offset is the largest seen', () => {
    // The server is 1.7 s ahead; its Date rounds down, so one answer says 1 s.
    const first = readRateHeaders({ date: date(NOW + 1_000) }, NOW).clockOffsetMs;
    expect(first).toBe(1_000);
    // A later answer just after its tick says 1.6 s; one that says less changes nothing.
    const better = readRateHeaders({ date: date(NOW + 2_000) }, NOW + 400, first);
    expect(better.clockOffsetMs).toBe(1_600);
    expect(readRateHeaders({ date: date(NOW + 2_000) }, NOW + 900, 1_600).clockOffsetMs).toBe(
      1_600,
    );
    // A far different Date is another clock: start again from it.
    expect(readRateHeaders({ date: date(NOW + 60_000) }, NOW, 1_600).clockOffsetMs).toBe(60_000);
  });

  it('reads the IETF draft fields: the policy with the fewest remaining binds', () => {
    const read = readRateHeaders(
      {
        date: date(NOW),
        ratelimit: '"minute";r=5;t=20, "day";r=900;t=40000',
        'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      },
      NOW,
    );
    expect(read.window).toEqual({ limit: 60, remaining: 5, resetAtMs: NOW + 20_000 });
  });

  it('reads the earlier draft: RateLimit-Limit, -Remaining, and -Reset in seconds', () => {
    const read = readRateHeaders(
      {
        date: date(NOW),
        'ratelimit-limit': '100, 100;w=60',
        'ratelimit-remaining': '7',
        'ratelimit-reset': '12',
      },
      NOW,
    );
    expect(read.window).toEqual({ limit: 100, remaining: 7, resetAtMs: NOW + 12_000 });
  });

  it('prefers X-RateLimit-* when both are sent', () => {
    const read = readRateHeaders(
      { ...xRateLimit('60', '3', SOON), ratelimit: '"p";r=50;t=5', 'ratelimit-policy': '"p";q=60' },
      NOW,
    );
    expect(read.window?.remaining).toBe(3);
  });

  it.each([
    ['Unix seconds (the contract)', String((NOW + 30_000) / 1000), NOW + 30_000],
    ['Unix milliseconds', String(NOW + 30_000), NOW + 30_000],
    ['seconds from now', '30', NOW + 30_000],
    ['fractional seconds from now', '29.5', NOW + 29_500],
    ['milliseconds from now, more than a day as seconds', '3600000', NOW + 3_600_000],
  ])('reads X-RateLimit-Reset as %s, by its magnitude', (_case, reset, resetAtMs) => {
    expect(readRateHeaders(xRateLimit('60', '7', reset), NOW).window).toEqual({
      limit: 60,
      remaining: 7,
      resetAtMs,
    });
  });

  it("reads Reset against the server's Date: Unix seconds from a clock two hours ahead", () => {
    const ahead = NOW + 7_200_000;
    const read = readRateHeaders(
      { ...xRateLimit('60', '7', String((ahead + 30_000) / 1000)), date: date(ahead) },
      NOW,
    );
    expect(read.window).toEqual({ limit: 60, remaining: 7, resetAtMs: NOW + 30_000 });
    const delta = readRateHeaders({ ...xRateLimit('60', '7', '30'), date: date(ahead) }, NOW);
    expect(delta.window?.resetAtMs).toBe(NOW + 30_000);
  });

  it('a Reset a second before the Date is the rounding of one cut to the second: read', () => {
    const headers = { date: date(NOW), ...xRateLimit('60', '0', String(NOW / 1000 - 1)) };
    expect(readRateHeaders(headers, NOW).window?.resetAtMs).toBe(NOW - 1000);
  });

  it.each([
    ['Reset 0 (the epoch)', '0'],
    ['Reset ten days away', String(NOW / 1000 + 10 * 86_400)],
    ['no Reset', undefined],
    ['a Reset of words', 'soon'],
    ['a negative Reset', '-30'],
    ['a Reset an hour before the Date', String(NOW / 1000 - 3600)],
    ['a Reset three seconds before the Date', String(NOW / 1000 - 3)],
  ])('%s: Remaining still counts, until a window has surely passed', (_case, reset) => {
    for (const remaining of [0, 5]) {
      const headers = { date: date(NOW), ...xRateLimit('60', String(remaining), reset) };
      expect(readRateHeaders(headers, NOW).window).toEqual({
        limit: 60,
        remaining,
        resetAtMs: NOW + UNREADABLE_RESET_WAIT_MS,
      });
    }
  });

  it.each([
    ['missing everything', xRateLimit()],
    ['garbage remaining', xRateLimit('60', 'lots', SOON)],
    ['negative remaining', xRateLimit('60', '-1', SOON)],
    ['fractional remaining', xRateLimit('60', '1.5', SOON)],
    ['remaining above limit', xRateLimit('60', '61', SOON)],
  ])('%s means no information', (_case, given) => {
    expect(readRateHeaders(given, NOW).window).toBeUndefined();
  });
});
