import type { Clock } from '../../src/core/clock.js';

export interface FakeClock extends Clock {
  /** Every sleep asked for, in order. */
  sleeps: number[];
}

/** A clock whose sleeps pass at once, so tests of long waits take no time. Aborts still win. */
export function fakeClock(startMs = Date.parse('2026-11-21T12:00:00Z')): FakeClock {
  let now = startMs;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    async sleep(ms, signal) {
      await Promise.resolve();
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      sleeps.push(ms);
      now += ms;
    },
  };
}

const IN_FLIGHT_TURNS = 10;

/**
 * A clock for concurrent waits: a sleep ends at the moment it was asked for (or now, if time
 * has passed it), so that workers waiting for the same Reset wake together, as on a real
 * clock, instead of each adding its wait. Time stands still while requests are in flight.
 */
export function concurrentClock(startMs = Date.parse('2026-11-21T12:00:00Z')): FakeClock {
  let now = startMs;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    async sleep(ms, signal) {
      const wakeAt = now + ms;
      // Turns of the event loop enough for a request on loopback to reach the server, and its
      // answer to come back, before time moves: requests in flight land at the time they left.
      for (let turn = 0; turn < IN_FLIGHT_TURNS; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      sleeps.push(ms);
      now = Math.max(now, wakeAt);
    },
  };
}
