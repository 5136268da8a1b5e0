import { setTimeout as delay } from 'node:timers/promises';

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, { signal }),
};

/** A wait as people read it: 2.1 s, 45 s, 12 min, 3.5 h. */
export function formatDuration(ms: number): string {
  if (ms >= 90 * 60_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  if (ms >= 90_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** A moment as people read it, in local time. */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString();
}
