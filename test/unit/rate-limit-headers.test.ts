import { describe, expect, it } from 'vitest';
import { parseRateLimit } from '../../src/http/rate-limit-headers.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const SOON = String(NOW / 1000 + 30);

function headers(limit?: string, remaining?: string, reset?: string) {
  return {
    'x-ratelimit-limit': limit,
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
  };
}

describe('parseRateLimit', () => {
  it('reads a well-formed set', () => {
    expect(parseRateLimit(headers('60', '59', SOON), NOW)).toEqual({
      limit: 60,
      remaining: 59,
      resetAtMs: NOW + 30_000,
    });
  });

  it('accepts a day window that resets a full day away, rounded up', () => {
    const dayAway = String(Math.ceil(NOW / 1000 + 86_400.5));
    expect(parseRateLimit(headers('1000', '999', dayAway), NOW)?.remaining).toBe(999);
  });

  it('takes the first of repeated headers', () => {
    expect(
      parseRateLimit({ ...headers('60', '1', SOON), 'x-ratelimit-limit': ['60', '1000'] }, NOW)
        ?.limit,
    ).toBe(60);
  });

  it.each([
    ['missing everything', headers()],
    ['missing reset', headers('60', '5')],
    ['garbage limit', headers('lots', '5', SOON)],
    ['negative remaining', headers('60', '-1', SOON)],
    ['fractional remaining', headers('60', '1.5', SOON)],
    ['remaining above limit', headers('60', '61', SOON)],
    ['reset 0 (epoch)', headers('60', '0', '0')],
    ['reset far in the future', headers('60', '0', String(NOW / 1000 + 10 * 86_400))],
    ['reset in milliseconds', headers('60', '0', String(NOW + 30_000))],
  ])('%s means no information', (_case, given) => {
    expect(parseRateLimit(given, NOW)).toBeUndefined();
  });
});
