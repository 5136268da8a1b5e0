import { describe, expect, it } from 'vitest';
import {
  LONGEST_WAIT_MS,
  UNREADABLE_RESET_WAIT_MS,
  parseRetryAfter,
  readRateHeaders,
} from '../../src/ratelimit/rate-headers.js';

// The server's now: every moment read is on its clock (the gate places it on this one).
const NOW = Date.parse('2026-11-21T12:00:00Z');
const SOON = String(NOW / 1000 + 30);
type Header = string | string[];
type Headers = Record<string, Header | undefined>;
const ok = (headers: Headers) => readRateHeaders({ status: 200, headers }, NOW);
const refused = (headers: Headers, status = 429) => readRateHeaders({ status, headers }, NOW);

function xRateLimit(limit?: Header, remaining?: Header, reset?: Header) {
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
    ['Fri, 31 Dec 2060 00:00:00 GMT', Date.parse('2060-12-31T00:00:00Z') - NOW],
    ['Fri, 31 Dec 2100 00:00:00 GMT', LONGEST_WAIT_MS],
    ['', undefined],
    ['-5', undefined],
    ['soon', undefined],
    ['5 seconds', undefined],
    ['Saturday, 21-Nov-26 12:00:30 GMT', undefined],
  ])('%j → %j ms: fractions round up, and no value is too large to obey', (text, expected) => {
    expect(parseRetryAfter(text, NOW)).toBe(expected);
  });
});

// What each deployed limiter sends (read from its source), and the window pets reads from it.
describe('every dialect, into one window', () => {
  it.each<[string, Headers, { limit: number; remaining: number; resetInS: number }]>([
    [
      'X-RateLimit-*, Reset in Unix seconds (the contract; express-rate-limit legacy)',
      xRateLimit('20', '19', SOON),
      { limit: 20, remaining: 19, resetInS: 30 },
    ],
    [
      'X-RateLimit-*, Reset in seconds from now (@fastify/rate-limit)',
      xRateLimit('20', '19', '10'),
      { limit: 20, remaining: 19, resetInS: 10 },
    ],
    [
      'X-RateLimit-*, Reset in fractional Unix seconds (koa-ratelimit)',
      xRateLimit('20', '18', String(NOW / 1000 + 9.123457)),
      { limit: 20, remaining: 18, resetInS: 9.124 },
    ],
    [
      'X-RateLimit-*, Reset in Unix milliseconds',
      xRateLimit('60', '7', String(NOW + 30_000)),
      { limit: 60, remaining: 7, resetInS: 30 },
    ],
    [
      'X-RateLimit-*, Reset in milliseconds from now',
      xRateLimit('60', '7', '3600000'),
      { limit: 60, remaining: 7, resetInS: 3600 },
    ],
    [
      'RateLimit-Reset as an HTTP-date (a gateway): the date, not a minute for a Reset unread',
      {
        'ratelimit-limit': '20',
        'ratelimit-remaining': '0',
        'ratelimit-reset': new Date(NOW + 9_000).toUTCString(),
      },
      { limit: 20, remaining: 0, resetInS: 9 },
    ],
    [
      'X-RateLimit-* from a gateway (1000 an hour) and the app (20 per 10 s): the one with fewer left',
      xRateLimit(['1000', '20'], ['999', '4'], ['3600', '10']),
      { limit: 20, remaining: 4, resetInS: 10 },
    ],
    [
      'the same, joined by a proxy into one header each',
      xRateLimit('1000, 20', '999, 4', '3600, 10'),
      { limit: 20, remaining: 4, resetInS: 10 },
    ],
    [
      'X-Rate-Limit-*',
      { 'x-rate-limit-limit': '15', 'x-rate-limit-remaining': '3', 'x-rate-limit-reset': SOON },
      { limit: 15, remaining: 3, resetInS: 30 },
    ],
    [
      'draft 6: RateLimit-Limit/-Remaining/-Reset',
      {
        'ratelimit-policy': '20;w=10',
        'ratelimit-limit': '20',
        'ratelimit-remaining': '19',
        'ratelimit-reset': '10',
      },
      { limit: 20, remaining: 19, resetInS: 10 },
    ],
    [
      'draft 5: RateLimit-Limit with its policy',
      { 'ratelimit-limit': '100, 100;w=60', 'ratelimit-remaining': '7', 'ratelimit-reset': '12' },
      { limit: 100, remaining: 7, resetInS: 12 },
    ],
    [
      'draft 7: RateLimit: limit, remaining, reset',
      { 'ratelimit-policy': '20;w=10', ratelimit: 'limit=20, remaining=19, reset=10' },
      { limit: 20, remaining: 19, resetInS: 10 },
    ],
    [
      'draft 8: RateLimit: "p";r;t (express-rate-limit)',
      {
        ratelimit: '"20-in-10sec"; r=19; t=10',
        'ratelimit-policy': '"20-in-10sec"; q=20; w=10; pk=:YmZhMDQ1ZjE2YjE3:',
      },
      { limit: 20, remaining: 19, resetInS: 10 },
    ],
    [
      'draft 8, two policies: the fewest remaining binds',
      {
        ratelimit: '"minute";r=5;t=20, "day";r=900;t=40000',
        'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      },
      { limit: 60, remaining: 5, resetInS: 20 },
    ],
    [
      'draft 8, policies in repeated headers',
      {
        ratelimit: ['"day";r=900;t=40000', '"minute";r=5;t=20'],
        'ratelimit-policy': ['"day";q=1000;w=86400', '"minute";q=60;w=60'],
      },
      { limit: 60, remaining: 5, resetInS: 20 },
    ],
  ])('%s', (_dialect, headers, { limit, remaining, resetInS }) => {
    expect(ok(headers).window).toEqual({ limit, remaining, resetAtMs: NOW + resetInS * 1000 });
  });

  it('a Reset from now is marked so, for the gate to allow for the Date’s uncertainty', () => {
    expect(ok(xRateLimit('20', '19', '10')).resetFromNow).toBe(true);
    expect(ok(xRateLimit('20', '19', SOON)).resetFromNow).toBeUndefined();
  });

  it('prefers X-RateLimit-* when both are sent', () => {
    const read = ok({
      ...xRateLimit('60', '3', SOON),
      ratelimit: '"p";r=50;t=5',
      'ratelimit-policy': '"p";q=60',
    });
    expect(read.window?.remaining).toBe(3);
  });

  it.each([
    [
      'draft 6',
      { 'ratelimit-policy': '20;w=10', 'ratelimit-limit': '20', 'ratelimit-remaining': '0' },
    ],
    ['draft 7', { 'ratelimit-policy': '20;w=10', ratelimit: 'limit=20, remaining=0, reset=soon' }],
    ['draft 8', { ratelimit: '"p";r=0', 'ratelimit-policy': '"p";q=20;w=10' }],
  ])('%s with no Reset that reads: Remaining 0 holds for the window length w=', (_d, headers) => {
    expect(ok(headers).window).toEqual({ limit: 20, remaining: 0, resetAtMs: NOW + 10_000 });
  });
});

describe('Retry-After', () => {
  it('takes the largest of several values, in a list or repeated', () => {
    expect(refused({ 'retry-after': ['1', '30'] }).retryAfterMs).toBe(30_000);
    expect(refused({ 'retry-after': '30, 1' }).retryAfterMs).toBe(30_000);
    expect(refused({ 'retry-after': ['Sat, 21 Nov 2026 12:01:00 GMT', '5'] }).retryAfterMs).toBe(
      60_000,
    );
  });

  it.each([429, 503])('is read on a %i, in seconds or as a date', (status) => {
    expect(refused({ 'retry-after': '7' }, status).retryAfterMs).toBe(7_000);
    expect(refused({ 'retry-after': 'Sat, 21 Nov 2026 12:00:09 GMT' }, status).retryAfterMs).toBe(
      9_000,
    );
  });
});

describe('headers that contradict themselves are no information', () => {
  it.each([
    ['Limit 0, Remaining 0, Reset 0 (a Prism mock)', xRateLimit('0', '0', '0')],
    ['Limit 0 with a Reset ahead', xRateLimit('0', '0', SOON)],
    ['Reset 0 (the epoch, or now)', xRateLimit('60', '0', '0')],
    ['draft 7 with reset=0 and limit=0', { ratelimit: 'limit=0, remaining=0, reset=0' }],
  ])('%s, on an answer let through: no window, no wait', (_case, headers) => {
    for (const status of [200, 201, 404]) {
      expect(readRateHeaders({ status, headers }, NOW).window).toBeUndefined();
    }
  });

  it.each([
    ['missing everything', xRateLimit()],
    ['garbage remaining', xRateLimit('60', 'lots', SOON)],
    ['negative remaining', xRateLimit('60', '-1', SOON)],
    ['fractional remaining', xRateLimit('60', '1.5', SOON)],
    ['remaining above limit', xRateLimit('60', '61', SOON)],
  ])('%s: no window, whatever the status', (_case, headers) => {
    expect(ok(headers).window).toBeUndefined();
    expect(refused(headers).window).toBeUndefined();
  });

  it('a Reset a second before now is the rounding of one cut to the second: read', () => {
    expect(ok(xRateLimit('60', '0', String(NOW / 1000 - 1))).window?.resetAtMs).toBe(NOW - 1000);
  });

  it.each([
    ['Reset 0', '0'],
    ['a Reset an hour before now', String(NOW / 1000 - 3600)],
  ])('%s on a 429: the refusal is believed, Remaining 0 holds a minute', (_case, reset) => {
    expect(refused(xRateLimit('60', '0', reset)).window).toEqual({
      limit: 60,
      remaining: 0,
      resetAtMs: NOW + UNREADABLE_RESET_WAIT_MS,
    });
  });
});

describe('plausible and alarming: obeyed', () => {
  it('Remaining 0 with a Reset ahead', () => {
    expect(ok(xRateLimit('60', '0', SOON)).window).toEqual({
      limit: 60,
      remaining: 0,
      resetAtMs: NOW + 30_000,
    });
  });

  it.each([
    ['no Reset', undefined],
    ['a Reset of words', 'soon'],
    ['a negative Reset', '-30'],
    ['a Reset ten days away', String(NOW / 1000 + 10 * 86_400)],
    ['a Reset an hour before now', String(NOW / 1000 - 3600)],
    ['a Reset three seconds before now', String(NOW / 1000 - 3)],
  ])('%s: Remaining still counts, until a window has surely passed', (_case, reset) => {
    for (const remaining of [0, 5]) {
      expect(ok(xRateLimit('60', String(remaining), reset)).window).toEqual({
        limit: 60,
        remaining,
        resetAtMs: NOW + UNREADABLE_RESET_WAIT_MS,
      });
    }
  });
});
