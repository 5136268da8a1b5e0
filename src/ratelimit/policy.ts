// The rate-limit policy as pure functions of (state, what a response said, now). The state
// belongs to one key at one API origin and is shared by every pets process using it; the
// gate (gate.ts) reads and writes it under a lock and only carries out what these decide.
//
// The rules: a request checks at the moment it would go, not only when it started waiting.
// Nothing goes while a Retry-After, a ban or a used-up window is known. While the known
// budget (Remaining, less what is reserved and in flight) is above zero, requests go at
// once, but for a bulk sender sharing a window that cannot hold all the work (sharing.ts).
// When nothing is known, or a window has ended, one request goes first to learn the
// new window, and the others follow its answer.

import type { ServerWindow } from './rate-headers.js';
import {
  bulkMayGoAt,
  liveSharing,
  sawShort,
  sayDemand,
  shortOnKey,
  type SharingState,
} from './sharing.js';

export interface GateState extends SharingState {
  /** The current window: `remaining` is what no request has reserved yet. */
  quota?: ServerWindow;
  /** Nothing is sent on this key before this time (Retry-After, a ban, a backoff). */
  cooldownUntilMs?: number;
  /** What the server said with the 429 that started the cooldown (e.g. key_banned). */
  cooldownCode?: string;
  /** 429s in a row: the exponent of the backoff when the server gives no wait. */
  consecutive429s: number;
  /** The request learning a new window, and when its claim lapses if no answer comes. */
  probe?: { id: string; untilMs: number };
  /**
   * Requests sent and not yet answered: when each claim lapses (a crashed process), and how
   * many requests had ended when it was sent.
   */
  inFlight?: Record<string, { untilMs: number; ended: number }>;
  /** Requests ended so far (answered, failed, or lapsed): tells a fresh answer from a stale one. */
  ended?: number;
  /** The last answer had no rate-limit headers: the server states no limit. */
  unlimited?: boolean;
  /** How far the server's clock is ahead of this one (rate-headers.ts), and when learnt. */
  serverClock?: { offsetMs: number; atMs: number };
}

export const EMPTY_STATE: GateState = { consecutive429s: 0 };

export type WaitReason = 'cooldown' | 'quota' | 'learning' | 'sharing';

export type SendDecision =
  | { go: true; state: GateState }
  | { go: false; state: GateState; reason: WaitReason; untilMs: number };

/** In flight and unanswered this long after --timeout, a request is taken as gone. */
export const CLAIM_SLACK_MS = 5_000;

function live(state: GateState, nowMs: number): GateState {
  const claims = Object.entries(state.inFlight ?? {});
  const inFlight = Object.fromEntries(claims.filter(([, claim]) => claim.untilMs > nowMs));
  const lapsed = claims.length - Object.keys(inFlight).length;
  const next: GateState = { ...state, inFlight, ended: (state.ended ?? 0) + lapsed };
  if (next.probe && next.probe.untilMs <= nowMs) delete next.probe;
  if (next.quota && next.quota.resetAtMs <= nowMs) delete next.quota;
  if (next.cooldownUntilMs !== undefined && next.cooldownUntilMs <= nowMs) {
    delete next.cooldownUntilMs;
    delete next.cooldownCode;
  }
  return liveSharing(next, nowMs);
}

/** What the asking process still has to send, this request included, and its name. */
export interface ProcessDemand {
  owner: string;
  count: number;
  /** The process sends this one request in all. */
  short?: boolean;
}

/**
 * May request `id` go now? If so, the returned state holds its reservation (budget taken,
 * in flight until `claimUntilMs`); if not, until when it should wait before asking again.
 * With `demand`, the process's word on what it still has to send is kept in the state, and
 * a process with more than one request to send shares the window (sharing.ts).
 */
export function decideSend(
  state: GateState,
  nowMs: number,
  id: string,
  claimUntilMs: number,
  demand?: ProcessDemand,
): SendDecision {
  const alive = live(state, nowMs);
  // No limit to share: nothing to reserve or say, so nothing to write.
  if (alive.unlimited && alive.cooldownUntilMs === undefined && !alive.quota) {
    return { go: true, state: alive };
  }
  const say = (from: GateState, count: number) =>
    demand
      ? sayDemand(from, demand.owner, { count, short: demand.short }, nowMs, claimUntilMs)
      : from;
  let current = say(alive, demand?.count ?? 0);
  if (current.cooldownUntilMs !== undefined) {
    return { go: false, state: current, reason: 'cooldown', untilMs: current.cooldownUntilMs };
  }
  const inFlight = {
    ...current.inFlight,
    [id]: { untilMs: claimUntilMs, ended: current.ended ?? 0 },
  };
  const sent = (from: GateState) => ({ ...say(from, (demand?.count ?? 1) - 1), inFlight });
  const quota = current.quota;
  if (quota) {
    if (quota.remaining <= 0) {
      return { go: false, state: current, reason: 'quota', untilMs: quota.resetAtMs };
    }
    if (demand && demand.count > 1) {
      const shared = bulkMayGoAt(current, nowMs);
      current = shared.state;
      if (shared.untilMs !== undefined) {
        return { go: false, state: current, reason: 'sharing', untilMs: shared.untilMs };
      }
    } else if (demand?.short) {
      current = sawShort(current, nowMs);
    }
    return {
      go: true,
      state: { ...sent(current), quota: { ...quota, remaining: quota.remaining - 1 } },
    };
  }
  if (current.probe) {
    return { go: false, state: current, reason: 'learning', untilMs: current.probe.untilMs };
  }
  return { go: true, state: { ...sent(current), probe: { id, untilMs: claimUntilMs } } };
}

// A window has budget to spare when this much is left of it: more than one process's burst
// can take ahead.
const AMPLE_REMAINING = 32;
const AMPLE_TIME_MS = 2_000;
/** The most requests one process reserves ahead in one change of the shared state. */
export const MAX_RESERVED_AHEAD = 8;

/**
 * The window has budget to spare: nothing blocks the key, no short process shares it, and
 * 32 requests and 2 s are left. Then a process may reserve a few requests ahead in one change
 * of the shared state, without leaving any other process short of budget.
 */
export function ampleBudget(state: GateState, nowMs: number): boolean {
  const quota = state.quota;
  return (
    quota !== undefined &&
    quota.remaining >= AMPLE_REMAINING &&
    quota.resetAtMs - nowMs > AMPLE_TIME_MS &&
    (state.cooldownUntilMs === undefined || state.cooldownUntilMs <= nowMs) &&
    !shortOnKey(state)
  );
}

/**
 * decideSend for `ids[0]`, and, while the budget stays ample, reservations for the rest
 * (at most MAX_RESERVED_AHEAD): requests of the same process about to follow, each with its
 * claim, so they go without a change of the shared state of their own.
 */
export function decideSends(
  state: GateState,
  nowMs: number,
  ids: readonly string[],
  claimUntilMs: number,
  demand: ProcessDemand,
): SendDecision & { reserved: string[] } {
  const first = decideSend(state, nowMs, ids[0]!, claimUntilMs, demand);
  const reserved: string[] = [];
  if (!first.go) return { ...first, reserved };
  let current = first.state;
  for (const id of ids.slice(1, 1 + Math.min(MAX_RESERVED_AHEAD, demand.count - 1))) {
    if (!ampleBudget(current, nowMs)) break;
    const count = demand.count - 1 - reserved.length;
    const next = decideSend(current, nowMs, id, claimUntilMs, { ...demand, count, short: false });
    if (!next.go) break;
    current = next.state;
    reserved.push(id);
  }
  return { go: true, state: current, reserved };
}

/** Request `id` ended with no answer (a network failure, an interrupt): its claim ends. */
export function releaseSend(state: GateState, id: string): GateState {
  const inFlight = { ...state.inFlight };
  if (!inFlight[id]) return state;
  delete inFlight[id];
  const next: GateState = { ...state, inFlight, ended: (state.ended ?? 0) + 1 };
  if (next.probe?.id === id) delete next.probe;
  return next;
}

/**
 * A claim taken ahead that no request used: it was never sent, so the server counted
 * nothing, and its budget goes back to the window it was taken from.
 */
export function returnUnsent(state: GateState, id: string): GateState {
  const inFlight = { ...state.inFlight };
  if (!inFlight[id]) return state;
  delete inFlight[id];
  const quota = state.quota && { ...state.quota, remaining: state.quota.remaining + 1 };
  return { ...state, inFlight, ...(quota ? { quota } : {}) };
}

export interface Answer {
  status: number;
  clockOffsetMs?: number;
  window?: ServerWindow;
  retryAfterMs?: number;
  /** The server's error code with a 429, when it gave one. */
  code?: string;
}

/** Clocks drift: what was learnt of the server's clock is trusted this long. */
export const SERVER_CLOCK_TRUST_MS = 10 * 60_000;

/** The server clock's offset as `state` knows it, if learnt recently enough to trust. */
export function knownClockOffset(state: GateState, nowMs: number): number | undefined {
  const clock = state.serverClock;
  return clock && nowMs - clock.atMs < SERVER_CLOCK_TRUST_MS ? clock.offsetMs : undefined;
}

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;

/**
 * Takes in what the answer to request `id` said. The server's Remaining counted the requests
 * that reached it before this one. Those that may have reached it after are the ones still in
 * flight, and those that ended while this one was out: less those, Remaining is never more
 * than what is left, whatever order the answers come in and whichever window they speak of.
 * So is the budget the state kept; the larger of the two is what may be sent. The later Reset
 * counts: one read to the whole second cannot tell the window's own from a newer one's.
 */
export function observeAnswer(
  state: GateState,
  id: string,
  nowMs: number,
  answer: Answer,
  random: () => number,
): GateState {
  const endedMeanwhile = (state.ended ?? 0) - (state.inFlight?.[id]?.ended ?? state.ended ?? 0);
  let next = live(releaseSend(state, id), nowMs);
  const clock = next.serverClock;
  // Kept fresh, but not rewritten for every answer that says the same.
  if (
    answer.clockOffsetMs !== undefined &&
    (clock?.offsetMs !== answer.clockOffsetMs || nowMs - clock.atMs > SERVER_CLOCK_TRUST_MS / 10)
  ) {
    next.serverClock = { offsetMs: answer.clockOffsetMs, atMs: nowMs };
  }
  const inFlight = Object.keys(next.inFlight ?? {}).length;
  const window = answer.window;
  if (window) {
    delete next.unlimited;
    const known = next.quota;
    const unsent = Math.max(0, window.remaining - inFlight - endedMeanwhile);
    next.quota = known
      ? {
          limit: window.limit,
          resetAtMs: Math.max(known.resetAtMs, window.resetAtMs),
          remaining: Math.max(known.remaining, unsent),
        }
      : { ...window, remaining: unsent };
  } else if (answer.status !== 429) {
    next.unlimited = true;
  }

  if (answer.status !== 429) return { ...next, consecutive429s: 0 };

  const streak = next.consecutive429s + 1;
  const quota = next.quota;
  if (quota) next.quota = { ...quota, remaining: 0 };
  delete next.unlimited;
  const serverWaitMs =
    answer.retryAfterMs ?? (quota && quota.resetAtMs > nowMs ? quota.resetAtMs - nowMs : undefined);
  // With no wait from the server, back off exponentially, with full jitter.
  const waitMs =
    serverWaitMs ??
    Math.ceil(
      BACKOFF_BASE_MS + random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (streak - 1)),
    );
  const until = nowMs + waitMs;
  next = {
    ...next,
    consecutive429s: streak,
    cooldownUntilMs: Math.max(until, next.cooldownUntilMs ?? 0),
  };
  if (answer.code !== undefined) next.cooldownCode = answer.code;
  return next;
}
