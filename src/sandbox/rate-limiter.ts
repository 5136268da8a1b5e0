import type { PlanLimits } from './plans.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * What a plan with no limit reports per minute. The contract puts X-RateLimit-* on every
 * response, so `unlimited` states a limit too: one no client reaches.
 */
export const UNLIMITED_PER_MINUTE = 1_000_000_000;

/** What the X-RateLimit-* headers report. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  resetsAt: number;
}

export interface BanPolicy {
  /** Requests sent during a cooldown that get the key banned. */
  strikesBeforeBan: number;
  banMs: number;
}

export type Admission =
  | { outcome: 'admitted'; state: RateLimitState }
  | {
      outcome: 'rate_limited';
      state: RateLimitState;
      retryAt: number;
      /** e.g. "60 requests per minute"; absent for a request sent during a cooldown. */
      exceeded: string | undefined;
      /** Requests sent during the current cooldown, this one included. */
      strikes: number;
      strikesBeforeBan: number;
    }
  | { outcome: 'banned'; state: RateLimitState; retryAt: number };

/**
 * A fixed window that opens at the first request counted in it and lasts `lengthMs`.
 * Requests refused for being over the limit are not counted.
 */
class FixedWindow {
  private endsAt = Number.NEGATIVE_INFINITY;
  private count = 0;

  constructor(
    readonly limit: number,
    readonly lengthMs: number,
    /** How the window reads in messages: "minute", "day". */
    readonly unit: string,
  ) {}

  remaining(now: number): number {
    return Math.max(0, this.limit - (now < this.endsAt ? this.count : 0));
  }

  /** When the window resets; with no open window, when one opened now would reset. */
  resetsAt(now: number): number {
    return now < this.endsAt ? this.endsAt : now + this.lengthMs;
  }

  record(now: number): void {
    if (now >= this.endsAt) [this.endsAt, this.count] = [now + this.lengthMs, 0];
    this.count++;
  }
}

/**
 * The rate limits of one key (or one anonymous client): a per-minute and a per-day window,
 * and the cooldown and ban that punish sending after a 429.
 */
export class RateLimiter {
  private readonly windows: FixedWindow[] = [];
  private cooldownUntil: number | undefined;
  private strikes = 0;
  private bannedUntil: number | undefined;

  constructor(
    limits: PlanLimits,
    private readonly banPolicy: BanPolicy,
  ) {
    // Minute before day: on equal remaining the day window is reported, as it resets later.
    if (limits.rpm !== null) {
      const lengthMs = limits.rpmWindowMs ?? MINUTE_MS;
      const unit = lengthMs === MINUTE_MS ? 'minute' : `${lengthMs / 1000} s`;
      this.windows.push(new FixedWindow(limits.rpm, lengthMs, unit));
    }
    if (limits.rpd !== null) this.windows.push(new FixedWindow(limits.rpd, DAY_MS, 'day'));
    if (this.windows.length === 0) {
      this.windows.push(new FixedWindow(UNLIMITED_PER_MINUTE, MINUTE_MS, 'minute'));
    }
  }

  admit(now: number): Admission {
    if (this.bannedUntil !== undefined) {
      if (now < this.bannedUntil) return this.banned(now, this.bannedUntil);
      this.bannedUntil = undefined;
      this.endCooldown();
    }
    if (this.cooldownUntil !== undefined) {
      if (now < this.cooldownUntil) return this.strike(now, this.cooldownUntil);
      this.endCooldown();
    }
    const exhausted = this.windows.filter((window) => window.remaining(now) === 0);
    if (exhausted.length > 0) {
      const retryAt = Math.max(...exhausted.map((window) => window.resetsAt(now)));
      this.cooldownUntil = retryAt;
      const exceeded = exhausted.map((window) => `${window.limit} requests per ${window.unit}`);
      return this.rateLimited(now, retryAt, exceeded.join(' and '));
    }
    for (const window of this.windows) window.record(now);
    return { outcome: 'admitted', state: this.state(now) };
  }

  private strike(now: number, cooldownUntil: number): Admission {
    this.strikes++;
    if (this.strikes < this.banPolicy.strikesBeforeBan) {
      return this.rateLimited(now, cooldownUntil, undefined);
    }
    this.bannedUntil = now + this.banPolicy.banMs;
    return this.banned(now, this.bannedUntil);
  }

  private endCooldown(): void {
    this.cooldownUntil = undefined;
    this.strikes = 0;
  }

  private rateLimited(now: number, retryAt: number, exceeded: string | undefined): Admission {
    return {
      outcome: 'rate_limited',
      state: this.blockedState(now, retryAt),
      retryAt,
      exceeded,
      strikes: this.strikes,
      strikesBeforeBan: this.banPolicy.strikesBeforeBan,
    };
  }

  private banned(now: number, until: number): Admission {
    return { outcome: 'banned', state: this.blockedState(now, until), retryAt: until };
  }

  // While blocked nothing is allowed, whatever the windows hold, so the headers say so too.
  private blockedState(now: number, blockedUntil: number): RateLimitState {
    const state = this.state(now);
    return { ...state, remaining: 0, resetsAt: Math.max(state.resetsAt, blockedUntil) };
  }

  /**
   * The applicable limit: the window with the fewest requests remaining, so a daily quota
   * is the one reported once it is tighter than the minute's.
   */
  private state(now: number): RateLimitState {
    let tightest = this.windows[0]!;
    for (const window of this.windows) {
      if (window.remaining(now) <= tightest.remaining(now)) tightest = window;
    }
    return {
      limit: tightest.limit,
      remaining: tightest.remaining(now),
      resetsAt: tightest.resetsAt(now),
    };
  }
}
