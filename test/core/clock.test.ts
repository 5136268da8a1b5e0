import { describe, expect, it } from 'vitest';
import { clockTime } from '../../src/core/clock.js';

// Local times, whatever the machine's zone: the formatter speaks in the user's own day.
const at = (y: number, m: number, d: number, h: number, min: number, s = 0) =>
  new Date(y, m - 1, d, h, min, s).getTime();

describe('clockTime', () => {
  const now = at(2026, 11, 24, 20, 40);

  it('gives only the time for a moment today', () => {
    expect(clockTime(at(2026, 11, 24, 20, 45, 1), now)).toBe('20:45:01');
    expect(clockTime(at(2026, 11, 24, 0, 0, 0), now)).toBe('00:00:00');
    expect(clockTime(at(2026, 11, 24, 23, 59, 59), now)).toBe('23:59:59');
  });

  it('says tomorrow for a moment on the next day, even a minute away', () => {
    expect(clockTime(at(2026, 11, 25, 20, 45, 1), now)).toBe('tomorrow 20:45:01');
    expect(clockTime(at(2026, 11, 25, 0, 0, 30), at(2026, 11, 24, 23, 59, 50))).toBe(
      'tomorrow 00:00:30',
    );
  });

  it('gives the date for any other day, across months and years', () => {
    expect(clockTime(at(2026, 11, 26, 8, 5, 9), now)).toBe('2026-11-26 08:05:09');
    expect(clockTime(at(2027, 1, 1, 0, 0, 0), at(2026, 12, 30, 12, 0))).toBe('2027-01-01 00:00:00');
    expect(clockTime(at(2026, 11, 23, 9, 0, 0), now)).toBe('yesterday 09:00:00');
  });
});
