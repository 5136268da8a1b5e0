import { followAbort } from '../core/abort.js';
import { formatDuration, type Clock } from '../core/clock.js';
import { InterruptedError } from '../core/errors.js';
import type { HttpRequest } from '../http/types.js';
import { retryBackoffMs } from './retry-policy.js';
import type { ServerClock } from './server-clock.js';
import { refuseWait, type WaitLimits, type WaitRefusal } from './wait-limits.js';

export interface WaitNotice {
  /** Why, in words: "rate limited", "quota used up", … */
  reason: string;
  attempt: number;
  maxAttempts: number;
}

/** Sleeps `ms`, showing what it likes (a countdown); rejects at once when `signal` aborts. */
export type Waiter = (ms: number, notice: WaitNotice, signal?: AbortSignal) => Promise<void>;

/** Why a wait ends early: this process learnt something (a constant, not an error). */
const WAKE = Symbol('wake');

/** The gate's waiting: how long the command has waited, whether one more wait fits, the wait. */
export class Waits {
  /** What the command has waited so far, concurrent waits counted once. */
  waitedMs = 0;
  private waitedUntilMs = Number.NEGATIVE_INFINITY;
  /** Aborted whenever this process learns something, to wake its waiting requests. */
  private changed = new AbortController();

  constructor(
    readonly limits: WaitLimits,
    private readonly clock: Clock,
    private readonly time: ServerClock,
    private readonly wait: Waiter,
    readonly trace: (line: string) => void,
    private readonly random: () => number,
  ) {}

  /** Requests of this process that wait ask the gate again. */
  wake(): void {
    this.changed.abort(WAKE);
    this.changed = new AbortController();
  }

  /** Why waiting `ms` from now does not fit the command's limits (wait-limits.ts), if not. */
  refusal(ms: number, banned = false): WaitRefusal | undefined {
    const now = this.time.steadyNow();
    // Concurrent waits count once: only what this one adds past those already counted.
    const added = Math.max(0, now + ms - Math.max(now, this.waitedUntilMs));
    return refuseWait(this.limits, { waitMs: ms, totalMs: this.waitedMs + added, banned });
  }

  /**
   * Waits a backoff after `failures` failures, before the request's attempt `notice.attempt`,
   * and says so; false, without waiting, when the command's limits refuse it.
   */
  async retryPause(failures: number, notice: WaitNotice, request: HttpRequest): Promise<boolean> {
    const ms = retryBackoffMs(failures, this.random);
    if (this.refusal(ms)) return false;
    const { reason, attempt, maxAttempts } = notice;
    this.trace(`wait ${formatDuration(ms)}: ${reason} (attempt ${attempt}/${maxAttempts})`);
    await this.pause(ms, notice, request, false);
    return true;
  }

  /**
   * Sleeps `ms`, showing `notice` (a countdown) where there is one. A wait for a limit also
   * ends when this process learns something, so that the request asks again; a wait shown
   * adds to the command's waiting (unless not `counted`), where concurrent waits count once.
   */
  async pause(
    ms: number,
    notice: WaitNotice | undefined,
    request: HttpRequest,
    wakeOnChange: boolean,
    counted = notice !== undefined,
  ): Promise<void> {
    const start = this.time.steadyNow();
    const stops = [request.signal, request.stopSending, request.halted];
    const stop = followAbort(wakeOnChange ? [...stops, this.changed.signal] : stops);
    try {
      if (notice) await this.wait(ms, notice, stop.signal);
      else await this.clock.sleep(ms, stop.signal);
    } catch (error) {
      if (stops.some((signal) => signal?.aborted)) throw new InterruptedError();
      if (!stop.signal.aborted) throw error;
    } finally {
      stop.dispose();
      if (counted) {
        const end = this.time.steadyNow();
        this.waitedMs += Math.max(0, end - Math.max(start, this.waitedUntilMs));
        this.waitedUntilMs = Math.max(this.waitedUntilMs, end);
      }
    }
  }
}
