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

// Issue 42: a process that has read no Date of its own carries forward the latest server
// moment another process read; on the same machine by the monotonic clock they share.
describe('the server time a process that has read no Date carries from another', () => {
  const server = Date.parse('2026-11-29T01:00:00Z');

  /** What a process of `boot` writes to the state on reading a Date of `server` (true time). */
  function seenBy(time: { ms: number }, boot: string) {
    const writer = new ServerClock(processClock(time, 0, boot));
    writer.measure(server, writer.steadyNow(), writer.steadyNow());
    return writer.seen();
  }

  it('on the same machine, counts the time since exactly, whatever its wall clock says', () => {
    const time = { ms: server };
    const seen = seenBy(time, 'boot-1');
    const agreeing = new ServerClock(processClock(time, 300, 'boot-1'));
    const skewed = new ServerClock(processClock(time, -50_000, 'boot-1'));
    time.ms += 61_000;
    expect(agreeing.now(seen)).toBe(server + 61_000);
    expect(skewed.now(seen)).toBe(server + 61_000);
  });

  it('from another machine, counts by its wall clock less the skew allowance: never early', () => {
    const time = { ms: server };
    const seen = seenBy(time, 'boot-1');
    time.ms += 61_000 + CLOCK_SKEW_ALLOWANCE_MS;
    const elsewhere = new ServerClock(processClock(time, 50_000, 'boot-2'));
    expect(elsewhere.now(seen)).toBe(server + 111_000);
    const unnamed = new ServerClock(processClock(time, 50_000));
    expect(unnamed.now(seen)).toBe(server + 111_000);
  });
});
