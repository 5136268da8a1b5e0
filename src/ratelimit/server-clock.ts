// The server's time as one pets process knows it. The state processes share on a key holds
// every moment (a cooldown's end, a window's Reset, a claim's lapse) on the server's clock,
// never on a process's own: processes whose clocks disagree (a container's, one under
// faketime, a clock stepped mid-run) then read the same deadline as the same moment. Each
// process converts with what it measured itself: the server's Date against its own steady
// clock.

import type { Clock } from '../core/clock.js';

/** The server's Date names a whole second. */
const DATE_RESOLUTION_MS = 1_000;

/**
 * How far the wall clocks of two processes on a key may disagree for one that has not read a
 * Date yet to count time since another did by its own clock. Within it a cooldown is never
 * taken to end early; past it, a process may send up to the difference early (one 429, then
 * it reads the server's Date). Without it, a process that never sends (a `pets list` held by a
 * cooldown) would wait for another process to read a Date, however long ago the block ended.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 180_000;

/** A process's monotonic clock at a moment, and the clock's name (Clock.monotonicClock). */
export interface MonotonicReading {
  clock: string;
  ms: number;
}

/**
 * The latest moment of the server's clock a process read from a Date, with its clocks then, as
 * the shared state keeps it: a process yet to read a Date itself counts from it, never from its
 * own clock, which may be anywhere (ServerClock.carriedFromWallClock).
 */
export interface SeenServerTime {
  seenServerMs?: number;
  seenAtLocalMs?: number;
  seenOnMonotonic?: MonotonicReading;
}

/**
 * The server's now from what a process knows, as a pure function: its own measured offset
 * (`offsetMs`, ServerClock's placedOffsetMs) and the latest server moment any process read
 * from a Date (`floor`), carried forward by the time this process has seen pass since then.
 * Each is a lower bound of the server's now, so the later is; a block is never taken to end
 * before it does. With neither, the local clock is the only guess, and no state holds a
 * moment to misread (every moment in it came with a floor).
 */
export function serverNowFrom(
  steadyNowMs: number,
  offsetMs: number | undefined,
  floor: { serverMs: number; steadyMs: number } | undefined,
): number {
  const own = offsetMs === undefined ? undefined : steadyNowMs + offsetMs;
  const carried = floor && floor.serverMs + Math.max(0, steadyNowMs - floor.steadyMs);
  if (own === undefined) return carried ?? steadyNowMs;
  return carried === undefined ? own : Math.max(own, carried);
}

export class ServerClock {
  private readonly startWallMs: number;
  private readonly startSteadyMs: number;
  /**
   * What the server's Dates tell of its clock less the steady one: each answer says it is at
   * least its Date less when the answer came, and less than the Date's next second less when
   * the request left. The answers together narrow it down.
   */
  private offset?: { lowMs: number; highMs: number };
  private floor?: { serverMs: number; steadyMs: number };

  constructor(private readonly clock: Clock) {
    this.startWallMs = clock.now();
    this.startSteadyMs = this.monotonic();
  }

  private monotonic(): number {
    return this.clock.monotonic?.() ?? this.clock.now();
  }

  /**
   * This machine's time as it was at start, moved on by the monotonic clock: a step of the
   * wall clock mid-run does not move it.
   */
  steadyNow(): number {
    return this.startWallMs + (this.monotonic() - this.startSteadyMs);
  }

  /**
   * The offset to place the server's moments with: none when every Date seen fits this
   * machine's clock (most servers share it, and a wait is then not stretched by a Date's
   * rounding), else the least the Dates allow, so that the server's now is never taken as
   * later than it is.
   */
  get placedOffsetMs(): number | undefined {
    const offset = this.offset;
    if (!offset) return undefined;
    return offset.lowMs <= 0 && offset.highMs >= 0 ? 0 : offset.lowMs;
  }

  /** Whether this process has read a Date itself. */
  get measured(): boolean {
    return this.offset !== undefined;
  }

  /**
   * How much later than this process's estimate the server's now may be: what the Dates leave
   * unknown, none for a clock taken to be this one (placedOffsetMs). A wait the server gave
   * from its now ends this much later on the shared clock, so that a process that knows the
   * server's clock better never reads it as ended early.
   */
  get uncertaintyMs(): number {
    const offset = this.offset;
    if (!offset || this.placedOffsetMs === 0) return 0;
    return Math.max(0, offset.highMs - offset.lowMs);
  }

  /** Takes in an answer's Date (undefined: it had none), given when its request left and came back. */
  measure(dateMs: number | undefined, sentSteadyMs: number, answeredSteadyMs: number): void {
    if (dateMs === undefined) return;
    const lowMs = dateMs - answeredSteadyMs;
    const highMs = dateMs + DATE_RESOLUTION_MS - sentSteadyMs;
    const known = this.offset;
    // Bounds that do not meet are another clock (the server's was set): start again.
    this.offset =
      known && lowMs <= known.highMs && highMs >= known.lowMs
        ? { lowMs: Math.max(lowMs, known.lowMs), highMs: Math.min(highMs, known.highMs) }
        : { lowMs, highMs };
  }

  /**
   * The server's now, a lower bound, given the latest server moment the shared state says a
   * process has read (`seenServerMs`).
   */
  now(seen: SeenServerTime = {}): number {
    const steady = this.steadyNow();
    const seenMs = this.carriedFromWallClock(seen);
    // A moment read now is the floor only if it is later than the floor carried so far.
    const carried = this.floor ? serverNowFrom(steady, undefined, this.floor) : -Infinity;
    if (seenMs !== undefined && seenMs > carried) {
      this.floor = { serverMs: seenMs, steadyMs: steady };
    }
    return serverNowFrom(steady, this.placedOffsetMs, this.floor);
  }

  /**
   * Whether a reading of this machine's monotonic clock is carried exactly (a command that
   * sends a few requests). A batch waits for a Date of its own instead: in a fleet of ten
   * batches on one key through a shared store, carrying it cost one 429 in each run tried
   * (rate-store's trials), a cause not yet found.
   */
  carriesExactly = true;

  /**
   * The seen server moment, moved on by the time since it was read, while this process has
   * read no Date of its own to place it by: exactly, by the monotonic clock, when it was read
   * on this one (another process of this machine), so a window another process saw spent is
   * over once its Reset has passed; else by its wall clock less the skew allowance, as another
   * machine's clock may be anywhere. Either way a lower bound.
   */
  private carriedFromWallClock(seen: SeenServerTime): number | undefined {
    if (seen.seenServerMs === undefined) return undefined;
    if (this.offset) return seen.seenServerMs;
    const there = seen.seenOnMonotonic;
    if (this.carriesExactly && there && there.clock === this.clock.monotonicClock?.()) {
      return seen.seenServerMs + Math.max(0, this.monotonic() - there.ms);
    }
    if (seen.seenAtLocalMs === undefined) return seen.seenServerMs;
    const elapsed = this.clock.now() - seen.seenAtLocalMs - CLOCK_SKEW_ALLOWANCE_MS;
    return seen.seenServerMs + Math.max(0, elapsed);
  }

  /**
   * What this process may write as the latest server moment read, once it has read a Date:
   * the least the server's now can be, by its own Dates and the floor (the now it acts on may
   * be later, where its clock is taken to be the server's), with its clocks.
   */
  seen(): SeenServerTime | undefined {
    if (!this.offset) return undefined;
    const clock = this.clock.monotonicClock?.();
    return {
      seenServerMs: serverNowFrom(this.steadyNow(), this.offset.lowMs, this.floor),
      seenAtLocalMs: this.clock.now(),
      ...(clock !== undefined && { seenOnMonotonic: { clock, ms: this.monotonic() } }),
    };
  }

  /**
   * The server's now as a person would best guess it, for what is shown (a Reset, a plan's
   * estimate), never for a decision: as now(), but before this process has read a Date
   * itself, its own clock where that is later than the floor (most servers share it). A
   * process that starts mid-window otherwise reads the window as begun at the floor, and
   * its plan says a minute more than the import takes.
   */
  likelyNow(seen?: SeenServerTime): number {
    const lowerBound = this.now(seen);
    return this.offset ? lowerBound : Math.max(lowerBound, this.steadyNow());
  }

  /** A moment on the server's clock as this machine's wall clock reads it, to show a person. */
  toLocal(serverMs: number, seen?: SeenServerTime): number {
    return serverMs - this.now(seen) + this.clock.now();
  }
}
