import { describe, expect, it } from 'vitest';
import {
  SHORT_MAX_WAIT_MS,
  UNATTENDED_WAIT_MS,
  refuseWait,
  waitLimits,
} from '../../src/ratelimit/wait-limits.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('waitLimits and refuseWait: how long a command waits on limits', () => {
  const batch = waitLimits({ batch: true });
  const short = waitLimits({ batch: false });

  it.each([
    ['a minute window', MINUTE + 1_000, 40 * HOUR],
    ['a window of 65 s', 66_000, 10 * HOUR],
    ['an hour window', HOUR + 1_000, 30 * HOUR],
  ])('a batch by default waits through %s, however many it needs', (_case, waitMs, totalMs) => {
    expect(refuseWait(batch, { waitMs, totalMs, banned: false })).toBeUndefined();
  });

  it.each([
    ['a daily quota used up', 20 * HOUR],
    ['a Retry-After of hours', 3 * HOUR],
  ])('a batch by default stops at %s', (_case, waitMs) => {
    expect(refuseWait(batch, { waitMs, totalMs: waitMs, banned: false })).toBe('unattended');
  });

  it('a batch by default stops at a ban, however short', () => {
    expect(refuseWait(batch, { waitMs: 1_000, totalMs: 1_000, banned: true })).toBe('ban');
  });

  it('the unattended bound covers an hour window read a few seconds late, and no more', () => {
    expect(UNATTENDED_WAIT_MS).toBeGreaterThanOrEqual(HOUR + 60_000);
    expect(UNATTENDED_WAIT_MS).toBeLessThan(2 * HOUR);
  });

  it('a short command keeps 60 s in all', () => {
    expect(short.maxWaitMs).toBe(SHORT_MAX_WAIT_MS);
    expect(refuseWait(short, { waitMs: 30_000, totalMs: 60_000, banned: false })).toBeUndefined();
    expect(refuseWait(short, { waitMs: 61_000, totalMs: 61_000, banned: false })).toBe('max-wait');
    expect(refuseWait(short, { waitMs: 5_000, totalMs: 65_000, banned: false })).toBe('max-wait');
  });

  it('an explicit --max-wait caps the total, for a batch too, and is all that counts', () => {
    for (const kind of [true, false]) {
      const limits = waitLimits({ batch: kind, maxWaitSeconds: 90 });
      expect(
        refuseWait(limits, { waitMs: 60_000, totalMs: 90_000, banned: false }),
      ).toBeUndefined();
      expect(refuseWait(limits, { waitMs: 60_000, totalMs: 91_000, banned: false })).toBe(
        'max-wait',
      );
      expect(refuseWait(limits, { waitMs: 60_000, totalMs: 60_000, banned: true })).toBeUndefined();
    }
    const day = waitLimits({ batch: true, maxWaitSeconds: 86_400 });
    expect(
      refuseWait(day, { waitMs: 20 * HOUR, totalMs: 20 * HOUR, banned: false }),
    ).toBeUndefined();
  });
});
