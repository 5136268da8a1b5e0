import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { CLOCK_SKEW_ALLOWANCE_MS, ServerClock } from '../../src/ratelimit/server-clock.js';

/** A process's clocks: its wall clock `skewMs` off true time, and a named monotonic clock. */
function processClock(time: { ms: number }, skewMs: number, monotonicName?: string): Clock {
  return {
    now: () => time.ms + skewMs,
    sleep: () => Promise.resolve(),
    monotonic: () => time.ms - 1_000_000,
    monotonicClock: () => monotonicName,
  };
}

describe('the server time a process that has read no Date carries from another', () => {
  const server = Date.parse('2026-11-29T01:00:00Z');

  it('counts the time since exactly on the same monotonic clock, whatever its wall clock says', () => {
    const time = { ms: server };
    const reader = new ServerClock(processClock(time, 0, 'boot-1'));
    const seen = {
      seenServerMs: server,
      seenAtLocalMs: server,
      seenOnMonotonic: reader.monotonicReading(),
    };
    const later = new ServerClock(processClock(time, -50_000, 'boot-1'));
    time.ms += 61_000;
    expect(later.now(seen)).toBe(server + 61_000);
  });

  it('on another machine, counts by its wall clock less the skew allowance: never early', () => {
    const time = { ms: server };
    const reader = new ServerClock(processClock(time, 0, 'boot-1'));
    const seen = {
      seenServerMs: server,
      seenAtLocalMs: server,
      seenOnMonotonic: reader.monotonicReading(),
    };
    time.ms += 61_000 + CLOCK_SKEW_ALLOWANCE_MS;
    const elsewhere = new ServerClock(processClock(time, 50_000, 'boot-2'));
    expect(elsewhere.now(seen)).toBe(server + 111_000);
    const unnamed = new ServerClock(processClock(time, 50_000));
    expect(unnamed.now(seen)).toBe(elsewhere.now(seen));
  });
});
