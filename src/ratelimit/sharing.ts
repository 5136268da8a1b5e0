// How processes on one key share a window whose budget is less than their work, as pure
// functions of (state, now). Each process says in the shared state how many requests it still
// has to send. When that demand is more than the budget left, the work needs the next window
// whatever is done, so a bulk sender (more than one request to send) spreads its sends until
// shortly before Reset rather than taking the whole budget at once: a short process (one
// request, such as `pets list` in a loop) that arrives mid-window still finds budget, and the
// window's budget is still all spent by its end. A short process never waits while budget is
// left. When the work fits the budget, or no short process is on the key, nothing is spread;
// but a bulk sender whose work needs the next window anyway leaves the window's last two
// requests until just before Reset, for a short process that has not come yet.
// On a sliding window, slots free one window after they were used, so a spread window frees
// its slots spread too: there, the short process's share can make the batch end later.

import type { ServerWindow } from './rate-headers.js';

/** What one process still has to send on the key, and when its word lapses (a crash). */
export interface Demand {
  count: number;
  untilMs: number;
  /** The process sends one request in all (a `pets list`), not the last of many. */
  short?: boolean;
}

/** The line a window's bulk sends follow: from `remaining` left at `fromMs` to none near Reset. */
export interface Spread {
  resetAtMs: number;
  fromMs: number;
  remaining: number;
}

export interface SharingState {
  /** The current window: `remaining` is what no request has reserved yet. */
  quota?: ServerWindow;
  /** Requests each process still has to send, by the process's claim prefix. */
  demand?: Record<string, Demand>;
  spread?: Spread;
  /** When a short process last sent: one of a loop comes again soon. */
  shortSeenAtMs?: number;
}

/** How long a short process that sent counts as still on the key: a loop's next start-up. */
export const SHORT_RECENT_MS = 1_000;

/**
 * The spreading ends this far before the known Reset: headers tell Reset to the whole second,
 * so the window may end up to a second before it, and the last sends must reach the server in
 * their window; and a share of the window is left for the last answers to come back.
 */
export const RESET_UNCERTAINTY_MS = 1_000;
export const SPREAD_END_SHARE = 0.1;

/** Drops what has lapsed: a word past its time, a spread or a sighting of an ended window. */
export function liveSharing<S extends SharingState>(state: S, nowMs: number): S {
  const next = { ...state };
  const entries = Object.entries(state.demand ?? {});
  const kept = entries.filter(([, demand]) => demand.untilMs > nowMs && demand.count > 0);
  if (kept.length > 0) next.demand = Object.fromEntries(kept);
  else delete next.demand;
  // A Reset that moved (a new window, or one read more closely) starts a new line.
  if (next.spread && next.spread.resetAtMs !== next.quota?.resetAtMs) delete next.spread;
  if (nowMs - (next.shortSeenAtMs ?? nowMs) >= SHORT_RECENT_MS) delete next.shortSeenAtMs;
  return next;
}

/**
 * Records that `owner` still has `count` requests to send. The word is rewritten only when
 * the count changes or half its time has passed, so that a process waiting on the same count
 * does not rewrite the shared state at every look.
 */
export function sayDemand<S extends SharingState>(
  state: S,
  owner: string,
  said: { count: number; short?: boolean },
  nowMs: number,
  untilMs: number,
): S {
  const { count, short } = said;
  const known = state.demand?.[owner];
  const same = known?.count === count && known.short === short;
  if (same && known.untilMs - nowMs > (untilMs - nowMs) / 2) return state;
  const demand = { ...state.demand };
  if (count > 0) demand[owner] = { count, untilMs, ...(short && { short: true }) };
  else delete demand[owner];
  const next: S = { ...state, demand };
  if (Object.keys(demand).length === 0) delete next.demand;
  return next;
}

/** Takes back what `owner` said, as when its process is found dead. */
export function forgetDemand<S extends SharingState>(state: S, owner: string): S {
  return state.demand?.[owner] ? sayDemand(state, owner, { count: 0 }, 0, 0) : state;
}

/** A short process is on the key, or was lately. */
export function shortOnKey(state: SharingState): boolean {
  return (
    Object.values(state.demand ?? {}).some((demand) => demand.short) ||
    state.shortSeenAtMs !== undefined
  );
}

/**
 * The last few requests of a window that bulk senders leave for short processes until just
 * before Reset: a `pets list` that comes after a batch took its window at once finds one at
 * once, instead of waiting up to a window for the next. Bulk sends take them at the end of the
 * window, so the windows the work needs stay as many. Two, for the one at a terminal and one
 * more (a loop's next start-up, a second terminal).
 */
export const SHORT_RESERVE = 2;
/** Bulk senders take the reserve this long before Reset: a second unknown, and a second to arrive. */
export const RESERVE_RELEASE_MS = 2 * RESET_UNCERTAINTY_MS;
/**
 * Only a window of at least ten times the reserve keeps one (a small window's budget is the
 * batch's pace), and only one that resets within minutes: a day's last requests are not held.
 */
const RESERVE_MIN_LIMIT = 10 * SHORT_RESERVE;
const RESERVE_HORIZON_MS = 5 * 60_000;

function shortReserveUntil(quota: ServerWindow, nowMs: number): { untilMs?: number } {
  const releaseAtMs = quota.resetAtMs - RESERVE_RELEASE_MS;
  const keeps =
    quota.limit >= RESERVE_MIN_LIMIT &&
    quota.remaining <= SHORT_RESERVE &&
    nowMs < releaseAtMs &&
    quota.resetAtMs - nowMs <= RESERVE_HORIZON_MS;
  return keeps ? { untilMs: releaseAtMs } : {};
}

/**
 * The moment a bulk request of `state` may go, or undefined if it may go now: only while the
 * work said on the key is more than the window's budget, so that it needs the next window
 * whatever is done, a bulk sender leaves the window's reserve (SHORT_RESERVE) until just before
 * Reset, and, while a short process is on the key, spreads its sends over the window.
 */
export function bulkMayGoAt<S extends SharingState>(
  state: S,
  nowMs: number,
): { state: S; untilMs?: number } {
  const quota = state.quota;
  if (!quota || quota.remaining <= 0) return { state };
  const total = Object.values(state.demand ?? {}).reduce((sum, said) => sum + said.count, 0);
  if (total <= quota.remaining) return { state };
  if (!shortOnKey(state)) return { state, ...shortReserveUntil(quota, nowMs) };
  const { resetAtMs, remaining } = quota;
  const spread = state.spread ?? { resetAtMs, fromMs: nowMs, remaining };
  const anchored = state.spread ? state : { ...state, spread };
  const endMs =
    spread.resetAtMs - RESET_UNCERTAINTY_MS - SPREAD_END_SHARE * (spread.resetAtMs - spread.fromMs);
  if (endMs <= spread.fromMs || spread.remaining <= 0) return { state: anchored };
  // The line keeps `remaining × (end − t) / (end − from)` back at t: a bulk request goes
  // once what would be left after it is no less than that.
  const goAt = endMs - ((remaining - 1) * (endMs - spread.fromMs)) / spread.remaining;
  return nowMs >= goAt ? { state: anchored } : { state: anchored, untilMs: Math.ceil(goAt) };
}

/** A short process sends now: remember it a while. */
export function sawShort<S extends SharingState>(state: S, nowMs: number): S {
  return { ...state, shortSeenAtMs: nowMs };
}
