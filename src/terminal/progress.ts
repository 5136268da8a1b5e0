import { bar } from '../output/bar.js';
import { formatDuration, type Clock } from '../core/clock.js';
import type { Waiter } from '../ratelimit/gate.js';
import type { Output } from './io.js';

export interface ProgressStats {
  done: number;
  /** Of those done, the ones an earlier run created: they took no request and no time. */
  skipped?: number;
  /** Known for a file, not for stdin. */
  total?: number;
  startedAtMs: number;
  nowMs: number;
  /** The wait under way for a send slot, if any. */
  waitMs?: number;
  waitReason?: string;
  /** Records sent per second lately; the whole run's average when not given. */
  recentRate?: number;
}

/**
 * One line: done/total, a bar, the rate of records sent, the time left, and any wait for the
 * rate limit. Skipped records count as done but not in the rate, or a resumed run would
 * promise an ETA its real pace cannot keep.
 */
export function renderProgress(stats: ProgressStats): string {
  const elapsedS = Math.max(0.001, (stats.nowMs - stats.startedAtMs) / 1000);
  const skipped = stats.skipped ?? 0;
  const rate = stats.recentRate ?? (stats.done - skipped) / elapsedS;
  const parts: string[] = [];
  if (stats.total !== undefined && stats.total > 0) {
    const share = Math.min(1, stats.done / stats.total);
    parts.push(`${stats.done}/${stats.total} ${bar(share)} ${Math.floor(share * 100)}%`);
  } else {
    parts.push(`${stats.done} done`);
  }
  if (skipped > 0) parts.push(`${skipped} skipped`);
  parts.push(`${rate.toFixed(1)}/s`);
  if (stats.total !== undefined && rate > 0 && stats.done < stats.total) {
    parts.push(`ETA ${formatDuration(((stats.total - stats.done) / rate) * 1000)}`);
  }
  // Pacing spreads sends over the workers: one worker's wait is not the pace, the rate above is.
  if (stats.waitMs !== undefined && stats.waitMs > 0) {
    parts.push(
      stats.waitReason === 'pacing'
        ? 'paced to the rate limit'
        : `${stats.waitReason ?? 'waiting'} ${formatDuration(stats.waitMs)}`,
    );
  }
  return parts.join(' · ');
}

const REDRAW_MS = 100;
// The rate is measured over this much of the recent past: a batch starts with a burst of
// the quota the server grants at once and then goes at the paced rate, which the ETA must
// follow.
const RATE_WINDOW_MS = 10_000;

/** Draws the progress line on a terminal's stderr, at most ten times a second. */
export class ProgressLine {
  private stats: ProgressStats;
  private lastDrawMs = -Infinity;
  private waitEndsAtMs?: number;
  /** When each record sent in the last RATE_WINDOW_MS was done. */
  private recentSends: number[] = [];

  constructor(
    private readonly stderr: Output,
    private readonly clock: Clock,
    total: number | undefined,
  ) {
    const now = clock.now();
    this.stats = { done: 0, total, startedAtMs: now, nowMs: now };
  }

  advance(skipped = false): void {
    this.stats.done++;
    if (skipped) this.stats.skipped = (this.stats.skipped ?? 0) + 1;
    else this.recentSends.push(this.clock.now());
    this.draw(false);
  }

  /** Records sent per second over the last RATE_WINDOW_MS (or the run so far, if shorter). */
  private recentRate(now: number): number {
    const since = now - RATE_WINDOW_MS;
    let old = 0;
    while (old < this.recentSends.length && this.recentSends[old]! <= since) old++;
    if (old > 0) this.recentSends.splice(0, old);
    const spanMs = Math.min(RATE_WINDOW_MS, now - this.stats.startedAtMs);
    return this.recentSends.length / Math.max(0.001, spanMs / 1000);
  }

  /** A waiter for the rate gate that shows the wait on this line instead of a countdown of its own. */
  waiter(): Waiter {
    return async (ms, notice, signal) => {
      this.waitEndsAtMs = this.clock.now() + ms;
      this.stats.waitReason = notice.reason;
      this.draw(true);
      try {
        await this.clock.sleep(ms, signal);
      } finally {
        this.waitEndsAtMs = undefined;
      }
    };
  }

  draw(force: boolean): void {
    const now = this.clock.now();
    if (!force && now - this.lastDrawMs < REDRAW_MS) return;
    this.lastDrawMs = now;
    this.stats.nowMs = now;
    this.stats.waitMs = this.waitEndsAtMs === undefined ? undefined : this.waitEndsAtMs - now;
    this.stats.recentRate = this.recentRate(now);
    this.stderr.write(`\r\u001b[2K${renderProgress(this.stats)}`);
  }

  clear(): void {
    this.stderr.write('\r\u001b[2K');
  }
}
