import { bar } from '../output/bar.js';
import { formatDuration, type Clock } from '../core/clock.js';
import { quotaOutlook, timeUnderQuotaMs, type GateView } from '../batch/plan.js';
import type { Waiter } from '../ratelimit/gate.js';
import type { Output } from './io.js';
import { fitLine, LiveFrame, type LineFit, type LineTerminal } from './live-frame.js';

export interface ProgressStats {
  /**
   * Records to send that are done: their create sent (created, failed or unknown), or cut off
   * by a stop. Invalid records, and those the journal skips or holds, are not in the count.
   */
  done: number;
  /** Records an earlier run created: skipped, they took no request and no time. */
  skipped?: number;
  /** Records to send, as the plan counts them (`297 to send`), when read ahead of the run (a file). */
  total?: number;
  /** Creates sent per second since the run began, waits included; skipped records are not in it. */
  rate: number;
  /** Time the rest will take, when it can be told. */
  etaMs?: number;
  /** The wait under way for a send slot, if any. */
  waitMs?: number;
  waitReason?: string;
}

// Below this many columns the line holds only the count and the time.
const NARROW_COLUMNS = 40;
const FULL_BAR = 20;
const SHORTEST_BAR = 5;

/**
 * One line: done/total, a bar, the rate of creates sent, the time left, and any wait for the
 * rate limit, counting down. With `fit`, the line is the fullest one shorter than the terminal
 * (a line as wide as the terminal may wrap, and a wrapped line cannot be redrawn in place):
 * the rate goes first, then words, then the bar shortens and goes; the count and the wait or
 * ETA stay. Below 40 columns only the count and the time are left.
 */
export function renderProgress(stats: ProgressStats, fit?: LineFit): string {
  const join = (parts: Array<string | undefined>) =>
    parts.filter((part) => part !== undefined && part !== '').join(' · ');
  const share =
    stats.total !== undefined && stats.total > 0
      ? Math.min(1, stats.done / stats.total)
      : undefined;
  const count = share !== undefined ? `${stats.done}/${stats.total}` : `${stats.done} done`;
  const head = (barWidth: number, percent = true) =>
    share === undefined
      ? count
      : [
          count,
          barWidth > 0 ? bar(share, barWidth) : '',
          percent ? `${Math.floor(share * 100)}%` : '',
        ]
          .filter(Boolean)
          .join(' ');
  const skipped = (stats.skipped ?? 0) > 0 ? `${stats.skipped} skipped` : undefined;
  const rate = `${stats.rate.toFixed(1)}/s`;
  const eta = stats.etaMs !== undefined ? `ETA ${formatDuration(stats.etaMs)}` : undefined;
  // Pacing spreads sends over the workers: one worker's wait is not the pace, the rate above is.
  const waiting = stats.waitMs !== undefined && stats.waitMs > 0;
  const pacing = stats.waitReason === 'pacing';
  const seconds = waiting ? Math.ceil(stats.waitMs! / 1000) : 0;
  const wait = !waiting
    ? undefined
    : pacing
      ? 'paced to the rate limit'
      : `${stats.waitReason ?? 'waiting'}, sending in ${seconds} s`;
  const full = join([head(FULL_BAR), skipped, rate, eta, wait]);
  if (!fit) return full;

  const shortWait = !waiting ? undefined : pacing ? 'paced' : `sending in ${seconds} s`;
  const time = [eta, waiting && !pacing ? `in ${seconds} s` : undefined];
  const candidates: string[] = [];
  if (fit.columns >= NARROW_COLUMNS) {
    candidates.push(
      full,
      join([head(FULL_BAR), skipped, eta, wait]),
      join([head(FULL_BAR), skipped, eta, shortWait]),
      join([head(FULL_BAR), eta, shortWait]),
    );
    for (let width = FULL_BAR - 1; width >= SHORTEST_BAR; width--) {
      candidates.push(join([head(width), eta, shortWait]));
    }
    candidates.push(join([head(0), eta, shortWait]));
  }
  candidates.push(join([count, ...time]), join([count, time[1] ?? time[0]]), count);
  return fitLine(candidates, fit);
}

/** What the progress line is told of the run ahead (the batch's plan). */
export interface ProgressPlan {
  /** Creates the run will send, when known: the total the line counts to. */
  toSend?: number;
}

const REDRAW_MS = 100;
const TICK_MS = 1_000;
// The rate is measured over this much of the recent past spent sending: a batch starts with
// a burst of the quota the server grants at once, and a wait is not sending.
const RATE_WINDOW_MS = 10_000;
// The key's quota is read from the shared state at most this often.
const QUOTA_READ_MS = 250;

/**
 * Draws the progress line on a terminal's stderr, at most ten times a second, fitted to the
 * terminal's width at each draw. A message written above it clears it first (StderrNotices
 * holds it as its live line), so no stale frame is left behind.
 */
export class ProgressLine {
  private done = 0;
  private skipped = 0;
  private sent = 0;
  private startedAtMs: number;
  private plan: ProgressPlan = {};
  private gateState: () => GateView | undefined = () => undefined;
  private lastDrawMs = -Infinity;
  /** When each wait under way ends. */
  private readonly waits = new Set<{ endsAtMs: number; reason: string }>();
  /** When sending last resumed after a wait: the rate counts from there. */
  private sendingSinceMs: number;
  /** When each create sent in the last RATE_WINDOW_MS was done. */
  private recentSends: number[] = [];
  private quota?: { readAtMs: number; state: GateView | undefined };
  /** The window's length, as seen between two windows' resets. */
  private windowMs?: number;
  private lastResetAtMs?: number;
  /** The window's length as first read from a Reset, until two resets tell it (windowMs). */
  private firstWindowMs?: number;

  private readonly frame: LiveFrame;
  private drawing = false;
  private stopResizes?: () => void;

  constructor(
    stderr: Output,
    private readonly clock: Clock,
    terminal?: LineTerminal,
  ) {
    this.frame = new LiveFrame(stderr, terminal);
    this.startedAtMs = clock.now();
    this.sendingSinceMs = this.startedAtMs;
  }

  /**
   * The run begins, with what its plan knows of the work ahead, and where to read the key's
   * rate-limit state as all processes know it.
   */
  start(plan: ProgressPlan, gateState: () => GateView | undefined = () => undefined): void {
    this.plan = plan;
    this.gateState = gateState;
    this.startedAtMs = this.clock.now();
    this.sendingSinceMs = this.startedAtMs;
    this.drawing = true;
    // A resize redraws at the new width at once, not at the next second.
    this.stopResizes = this.frame.followResizes(() => this.draw(true));
  }

  /**
   * One record is done; `sent`: a create left for it (not skipped, held or invalid). Only a
   * record to send counts towards the total: one whose create left, or that a stop cut off.
   */
  advance(result: { kind: string; sent?: boolean }): void {
    if (result.sent || result.kind === 'notSent') this.done++;
    if (result.kind === 'skipped') this.skipped++;
    if (result.sent) {
      this.sent++;
      this.recentSends.push(this.clock.now());
    }
    this.draw(false);
  }

  /** A waiter for the rate gate that shows the wait on this line, counting down each second. */
  waiter(): Waiter {
    return async (ms, notice, signal) => {
      const wait = { endsAtMs: this.clock.now() + ms, reason: notice.reason };
      this.waits.add(wait);
      this.draw(true);
      try {
        // Sleep to the next whole second left, so the count shown is always the ceiling.
        for (let left = ms; left > 0; left = wait.endsAtMs - this.clock.now()) {
          await this.clock.sleep(Math.min(left, left % TICK_MS || TICK_MS), signal);
          this.draw(false);
        }
      } finally {
        this.waits.delete(wait);
        if (this.waits.size === 0) this.sendingSinceMs = this.clock.now();
      }
    };
  }

  stats(now = this.clock.now()): ProgressStats {
    const wait = this.nextWaitEnd();
    const stats: ProgressStats = {
      done: this.done,
      skipped: this.skipped,
      // The records to send, as the plan says: not the invalid ones, nor those the journal holds.
      total: this.plan.toSend,
      rate: this.sent / Math.max(0.001, (now - this.startedAtMs) / 1000),
    };
    if (wait && wait.endsAtMs > now) {
      stats.waitMs = wait.endsAtMs - now;
      stats.waitReason = wait.reason;
    }
    const eta = this.etaMs(now, this.sendingRate(now), stats.waitMs);
    if (eta !== undefined) stats.etaMs = eta;
    return stats;
  }

  private nextWaitEnd(): { endsAtMs: number; reason: string } | undefined {
    let next: { endsAtMs: number; reason: string } | undefined;
    for (const wait of this.waits) if (!next || wait.endsAtMs < next.endsAtMs) next = wait;
    return next;
  }

  /** Creates sent per second over the last RATE_WINDOW_MS spent sending, not waiting. */
  private sendingRate(now: number): number {
    if (this.waits.size > 0) return 0;
    const since = Math.max(now - RATE_WINDOW_MS, this.sendingSinceMs);
    let old = 0;
    while (old < this.recentSends.length && this.recentSends[old]! <= since) old++;
    if (old > 0) this.recentSends.splice(0, old);
    return this.recentSends.length / Math.max(0.001, (now - since) / 1000);
  }

  /**
   * The time left: the windows the quota still imposes on the creates left to send, or, when
   * the quota holds them all (or none is known), their number at the rate of sending.
   */
  private etaMs(now: number, rate: number, waitMs: number | undefined): number | undefined {
    const left =
      this.plan.toSend !== undefined ? Math.max(0, this.plan.toSend - this.sent) : undefined;
    if (left === undefined || left === 0) return undefined;
    const state = this.readQuota(now);
    // A length read from a window under way can only come out short, and shorter with every
    // second of it: the first one read is kept, so that the ETA never falls faster than time
    // (a length inferred anew each second made it fall 3 s a second on 35 records at 10 per
    // 20 s). Once two resets have been seen, the length between them is known.
    const outlook = quotaOutlook(state, now, { windowMs: this.windowMs ?? this.firstWindowMs });
    if (outlook.window && this.windowMs === undefined)
      this.firstWindowMs ??= outlook.window.lengthMs;
    const quotaMs = timeUnderQuotaMs(outlook, left, now);
    if (quotaMs !== undefined && quotaMs > 0) return Math.max(quotaMs, waitMs ?? 0);
    if (rate > 0) return Math.max((left / rate) * 1000, waitMs ?? 0);
    return waitMs;
  }

  private readQuota(now: number): GateView | undefined {
    if (!this.quota || now - this.quota.readAtMs >= QUOTA_READ_MS) {
      let state: GateView | undefined;
      try {
        state = this.gateState();
      } catch {
        state = undefined;
      }
      this.quota = { readAtMs: now, state };
      const resetAt = state?.quota?.resetAtMs;
      if (resetAt !== undefined && resetAt !== this.lastResetAtMs) {
        // Only a Reset read once the last one has passed is a new window's: answers in the
        // same window may tell its Reset a second apart (whole seconds, rounded up), which
        // read as two resets made a minute's window 1 s long, and the ETA 59 s for 4 min.
        const last = this.lastResetAtMs;
        if (last !== undefined && now >= last && resetAt > last) {
          const seen = resetAt - last;
          this.windowMs = Math.min(this.windowMs ?? Infinity, seen);
        }
        this.lastResetAtMs = resetAt;
      }
    }
    return this.quota.state;
  }

  draw(force: boolean): void {
    if (!this.drawing) return;
    const now = this.clock.now();
    if (!force && now - this.lastDrawMs < REDRAW_MS) return;
    this.lastDrawMs = now;
    this.frame.show(renderProgress(this.stats(now), this.frame.fit()));
  }

  /** Erases the line, as before a message is written above it. */
  clear(): void {
    this.frame.clear();
  }

  /** Draws the line again, after a message written above it. */
  redraw(): void {
    this.draw(true);
  }

  /** The run is over: the line goes, and stops following resizes. */
  end(): void {
    this.drawing = false;
    this.stopResizes?.();
    this.stopResizes = undefined;
    this.clear();
  }
}
