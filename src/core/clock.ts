import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * A clock that only moves forward at a steady pace, whatever happens to the wall clock (a
   * step by NTP or by hand): its differences measure elapsed time. Default: `now`.
   */
  monotonic?(): number;
  /**
   * Names the monotonic clock: processes whose names match read the same monotonic time (one
   * machine, one boot, containers included), so one may count time from another's reading.
   * undefined: no name is known (another system, a test clock).
   */
  monotonicClock?(): string | undefined;
}

/**
 * Milliseconds on the process's monotonic clock. process.hrtime, not performance.now: the
 * `performance` global loads perf_hooks on first use, ~0.7 ms of every run that sends.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Linux's id of this boot: process.hrtime counts from it, in every process of the machine.
 * None where this process's clock is ahead of the kernel's uptime: a time-faking library
 * (faketime, unless told FAKETIME_DONT_FAKE_MONOTONIC) moved it, but not /proc/uptime, and
 * time counted from another process's reading would be that far off.
 */
function bootId(): string | undefined {
  try {
    const uptimeMs = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
    if (!(monotonicMs() <= uptimeMs + 1000)) return undefined;
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, { signal }),
  monotonic: monotonicMs,
  monotonicClock: bootId,
};

/** A wait as people read it: 2.1 s, 45 s, 12 min, 3.5 h. */
export function formatDuration(ms: number): string {
  if (ms >= 90 * 60_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  if (ms >= 90_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** The local calendar day of `ms`, as a number that grows by one a day (DST-proof). */
function localDay(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) / 86_400_000;
}

/**
 * A moment as people read it, in local time, saying its day when that is not today:
 * `20:45:01`, `tomorrow 20:45:01`, `2026-11-27 20:45:01`. Every time pets shows (when a
 * wait ends, when to retry, when a window resets) goes through here, so that "Retry after
 * 20:45" never leaves a person guessing which day.
 */
export function clockTime(ms: number, nowMs: number): string {
  const date = new Date(ms);
  const time = `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}`;
  const days = localDay(ms) - localDay(nowMs);
  if (days === 0) return time;
  if (days === 1) return `tomorrow ${time}`;
  if (days === -1) return `yesterday ${time}`;
  return `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())} ${time}`;
}
