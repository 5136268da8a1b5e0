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
//
// Every moment in the state, and every `nowMs` these functions take, is on the server's
// clock (server-clock.ts): processes whose own clocks disagree share one state.

import { pacedAt, paceAccepted, paceRefused, paceSend, startPace, type Pace } from './pacing.js';
import type { ServerWindow } from './rate-headers.js';
import type { SeenServerTime } from './server-clock.js';
import {
  bulkMayGoAt,
  liveSharing,
  sawShort,
  sayDemand,
  shortOnKey,
  type SharingState,
} from './sharing.js';

export interface GateState extends SharingState, SeenServerTime {
  /** Nothing is sent on this key before this time (Retry-After, a ban, a backoff). */
  cooldownUntilMs?: number;
  /** What the server said with the 429 that started the cooldown (e.g. key_banned). */
  cooldownCode?: string;
  /**
   * Refusals (429 or 503) in a row on the key that the quota does not explain, with no
   * success between them: how many, since when, the last wait they caused (the next is at
   * least double), and `ended` as it stood after the last, to tell a new refusal from an
   * answer to a request sent before the last was known (the same refusal, heard again).
   */
  refusals?: Refusals;
  /**
   * When the key last showed a limit (rate headers, or a 429): an answer without headers soon
   * after means the limit is unknown, not absent.
   */
  limitSeenAtMs?: number;
  /** The request learning a new window, and when its claim lapses if no answer comes. */
  probe?: Claim & { id: string };
  /**
   * Requests sent and not yet answered: when each claim lapses (a crashed process), and how
   * many requests had ended when it was sent.
   */
  inFlight?: Record<string, Claim & { ended: number; gapMs?: number }>;
  /** Requests ended so far (answered, failed, or lapsed): tells a fresh answer from a stale one. */
  ended?: number;
  /** The last answer had no rate-limit headers: the server states no limit. */
  unlimited?: boolean;
  /** By owner (a claim prefix) with unplaced claims in flight, the lease it renews (gate.ts). */
  leases?: Record<string, number>;
  /**
   * Another client uses the key (crowded): requests go one at a time until this moment, the
   * Reset of the window it was seen in. See `anotherClient`.
   */
  crowdedUntilMs?: number;
  /** A server with no rate headers: the pace learnt from its 429s (pacing.ts). */
  pace?: Pace;
}

export const EMPTY_STATE: GateState = {};

export interface Refusals {
  count: number;
  sinceMs: number;
  lastWaitMs: number;
  status: 429 | 503;
  ended: number;
}

/**
 * A request's hold on the key until its answer comes. `untilMs` is when it lapses should no
 * answer come (its process died). A claim made by a process that has not yet read the
 * server's Date is `unplaced`: its `untilMs` may be far behind the server's now, so time never
 * lapses it; only its answer, or its process found gone (the gate), ends it.
 */
export interface Claim {
  untilMs: number;
  unplaced?: true;
}

/** The claim lapses by time (an unplaced one never does). */
function lapsed(claim: Claim, nowMs: number): boolean {
  return !claim.unplaced && claim.untilMs <= nowMs;
}

export type WaitReason = 'cooldown' | 'quota' | 'learning' | 'sharing' | 'crowded' | 'pacing';

export type SendDecision =
  | { go: true; state: GateState }
  | { go: false; state: GateState; reason: WaitReason; untilMs: number };

/** In flight and unanswered this long after --timeout, a request is taken as gone. */
export const CLAIM_SLACK_MS = 5_000;

/** The window and the cooldown of `state` that still hold at `nowMs`: the one place that says. */
export function liveLimits<Q extends { resetAtMs: number }>(
  state: { quota?: Q; cooldownUntilMs?: number; cooldownCode?: string } | undefined,
  nowMs: number,
): { quota?: Q; cooldownUntilMs?: number; cooldownCode?: string } {
  const quota = state?.quota && state.quota.resetAtMs > nowMs ? state.quota : undefined;
  const cooling = (state?.cooldownUntilMs ?? nowMs) > nowMs;
  return cooling
    ? { quota, cooldownUntilMs: state?.cooldownUntilMs, cooldownCode: state?.cooldownCode }
    : { quota };
}

/**
 * The places in the window that claims hold now, by every process the state counts: requests
 * sent and not yet answered, and those a process took ahead for its next sends. The state does
 * not tell the two apart: a claim taken ahead becomes a request's as it is sent.
 */
export function placesTaken(state: GateState | undefined, nowMs: number): number {
  return Object.values(state?.inFlight ?? {}).filter((claim) => !lapsed(claim, nowMs)).length;
}

function live(state: GateState, nowMs: number): GateState {
  const claims = Object.entries(state.inFlight ?? {});
  const inFlight = Object.fromEntries(claims.filter(([, claim]) => !lapsed(claim, nowMs)));
  const ended = claims.length - Object.keys(inFlight).length;
  const next: GateState = { ...state, inFlight, ended: (state.ended ?? 0) + ended };
  if (next.probe && lapsed(next.probe, nowMs)) delete next.probe;
  const limits = liveLimits(next, nowMs);
  if (!limits.quota) delete next.quota;
  if (limits.cooldownUntilMs === undefined) {
    delete next.cooldownUntilMs;
    delete next.cooldownCode;
  }
  if (next.crowdedUntilMs !== undefined && next.crowdedUntilMs <= nowMs) delete next.crowdedUntilMs;
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
 * in flight until `claimUntilMs`, or until answered when `placed` is false: the asking
 * process has not read the server's clock yet); if not, until when it should wait before
 * asking again. With `demand`, the process's word on what it still has to send is kept in
 * the state, and a process with more than one request to send shares the window (sharing.ts).
 */
export function decideSend(
  state: GateState,
  nowMs: number,
  id: string,
  claimUntilMs: number,
  demand?: ProcessDemand,
  placed = true,
): SendDecision {
  const claim: Claim = { untilMs: claimUntilMs, ...(!placed && { unplaced: true as const }) };
  const alive = live(state, nowMs);
  // No limit to share: nothing to reserve or say, so nothing to write.
  if (alive.unlimited && alive.cooldownUntilMs === undefined && !alive.quota && !alive.pace) {
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
  const inFlight = { ...current.inFlight, [id]: { ...claim, ended: current.ended ?? 0 } };
  const sent = (from: GateState) => ({ ...say(from, (demand?.count ?? 1) - 1), inFlight });
  const quota = current.quota;
  if (quota) {
    if (quota.remaining <= 0) {
      return { go: false, state: current, reason: 'quota', untilMs: quota.resetAtMs };
    }
    const ahead = Object.values(current.inFlight ?? {});
    if (current.crowdedUntilMs !== undefined && ahead.length > 0) {
      // One at a time: the next goes once this one is answered, or its claim lapses.
      const lapsing = ahead.filter((claim) => !claim.unplaced).map((claim) => claim.untilMs);
      const untilMs = Math.min(current.crowdedUntilMs, ...lapsing);
      return { go: false, state: current, reason: 'crowded', untilMs };
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
    const spent = { ...quota, remaining: quota.remaining - 1 };
    return { go: true, state: { ...sent(current), quota: spent } };
  }
  if (current.probe) {
    return { go: false, state: current, reason: 'learning', untilMs: current.probe.untilMs };
  }
  if (current.pace) {
    // A server with no rate headers: one request at a time, as for any limit not known, at
    // the pace learnt; while it ramps, with no 429 yet, a process of one request goes at once.
    const ramping = current.pace.refusedGapMs === 0 && demand?.short === true;
    const untilMs = ramping ? nowMs : pacedAt(current.pace);
    if (untilMs > nowMs) return { go: false, state: current, reason: 'pacing', untilMs };
    const paced = paceSend(current.pace, nowMs);
    inFlight[id] = { ...inFlight[id]!, gapMs: paced.gapMs };
    return { go: true, state: { ...sent(current), pace: paced.pace, probe: { id, ...claim } } };
  }
  return { go: true, state: { ...sent(current), probe: { id, ...claim } } };
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
    liveLimits(state, nowMs).cooldownUntilMs === undefined &&
    state.crowdedUntilMs === undefined &&
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
  placed = true,
): SendDecision & { reserved: string[] } {
  const first = decideSend(state, nowMs, ids[0]!, claimUntilMs, demand, placed);
  const reserved: string[] = [];
  if (!first.go) return { ...first, reserved };
  let current = first.state;
  for (const id of ids.slice(1, 1 + Math.min(MAX_RESERVED_AHEAD, demand.count - 1))) {
    if (!ampleBudget(current, nowMs)) break;
    const rest = { ...demand, count: demand.count - 1 - reserved.length, short: false };
    const next = decideSend(current, nowMs, id, claimUntilMs, rest, placed);
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
  if (!state.inFlight?.[id]) return state;
  const { [id]: _unsent, ...inFlight } = state.inFlight;
  const quota = state.quota && { ...state.quota, remaining: state.quota.remaining + 1 };
  return { ...state, inFlight, ...(quota && { quota }) };
}

export interface Answer {
  status: number;
  /** The server's time as the answering process read it, once it has read a Date itself. */
  seen?: SeenServerTime;
  window?: ServerWindow;
  retryAfterMs?: number;
  /** The server's error code with a 429, when it gave one. */
  code?: string;
}

/** The least wait after a refusal: a Retry-After of 0, past or unreadable is no reason to resend at once. */
export const BACKOFF_BASE_MS = 1_000;
/** Each refusal in a row waits up to this share longer than its floor, so that clients spread out. */
export const BACKOFF_JITTER = 0.25;
/**
 * Refusals in a row, with no success between, after which a run stops (exit 5 for 429, 7 for
 * 503): with waits from 1 s doubling, about half a minute of a server that refuses everything.
 * A wait for a used-up window is no refusal: the quota explains it, and it never counts.
 */
export const MAX_REFUSALS = 5;
/** How long a limit the key showed makes an answer without rate headers mean "unknown". */
export const LIMIT_MEMORY_MS = 10 * 60_000;

/**
 * The refusal `answer` adds to the streak, if it is one that counts: 429 or 503 that the
 * quota does not explain, to a request sent after the last refusal was known.
 */
function countsAsRefusal(
  state: GateState,
  claimEnded: number | undefined,
  answer: Answer,
  nowMs: number,
) {
  if (answer.status !== 429 && answer.status !== 503) return false;
  if (explainedByQuota(state, answer, nowMs)) return false;
  const streak = state.refusals;
  if (!streak) return true;
  // A request sent with no claim (no limit was known) counts only as the first of a streak.
  return claimEnded !== undefined && claimEnded >= streak.ended;
}

/**
 * A 429 the quota explains: its window (or, when it has none, the one known) is used up until
 * a Reset still ahead. Its wait is a window's, not a refusal's.
 */
function explainedByQuota(state: GateState, answer: Answer, nowMs: number): boolean {
  if (answer.status !== 429) return false;
  const window = answer.window ?? state.quota;
  return window !== undefined && window.remaining <= 0 && window.resetAtMs > nowMs;
}

/**
 * The key has been refused MAX_REFUSALS times in a row and is still waiting the last out:
 * a process asking now stops at once, sending nothing. Once the wait is over, one request
 * may try again, and one more refusal stops it.
 */
export function refusalsExhausted(state: GateState): boolean {
  return (state.refusals?.count ?? 0) >= MAX_REFUSALS && state.cooldownUntilMs !== undefined;
}

/** The refusal streak reached its bound with this answer: the run stops. */
export function refusedTooOften(before: GateState, after: GateState): boolean {
  const count = after.refusals?.count ?? 0;
  return count > (before.refusals?.count ?? 0) && count >= MAX_REFUSALS;
}

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
  const next = learnAnswer(state, id, nowMs, answer, random);
  if (!anotherClient(state, id, nowMs, answer)) return next;
  const window = answer.window;
  const resetAtMs = window?.resetAtMs ?? state.quota!.resetAtMs;
  next.crowdedUntilMs = Math.max(next.crowdedUntilMs ?? 0, resetAtMs);
  // The budget this state kept counted no one else: the server's word is the better one.
  if (window && next.quota) {
    const left = unsentOf(window, state, next, id);
    next.quota = { ...next.quota, remaining: Math.min(next.quota.remaining, left) };
  }
  return next;
}

/**
 * What `window`'s Remaining, in the answer to request `id`, leaves to send: less the requests
 * still out in `next` (the state once `id` is released) and those that ended while `id` was
 * out, which may have reached the server after it.
 */
function unsentOf(window: ServerWindow, state: GateState, next: GateState, id: string): number {
  const endedMeanwhile = (state.ended ?? 0) - (state.inFlight?.[id]?.ended ?? state.ended ?? 0);
  const out = Object.keys(next.inFlight ?? {}).length + endedMeanwhile;
  return Math.max(0, window.remaining - out);
}

/** Within this much of the known Reset, an answer's window is the known one. */
const SAME_WINDOW_MS = 500;

/**
 * The answer to request `id` shows a client that this state does not count (another machine,
 * another program): the request went under a window this state knew had budget for it, and
 * the server refused it (429), or said less Remaining than this state had left after all it
 * took, of that same window, still running. Alone on the key, the server's Remaining is never
 * below that: it counts only the requests that reached it. A request that went to learn a
 * window predicted nothing.
 */
export function anotherClient(state: GateState, id: string, nowMs: number, answer: Answer) {
  const known = state.quota;
  if (!known || known.resetAtMs <= nowMs) return false;
  if (!state.inFlight?.[id] || state.probe?.id === id) return false;
  if (answer.status === 429) return true;
  const window = answer.window;
  return (
    window !== undefined &&
    window.resetAtMs > nowMs &&
    window.resetAtMs >= known.resetAtMs - SAME_WINDOW_MS &&
    window.remaining < known.remaining
  );
}

/** The latest server moment a process has read, with its clocks then (server-clock.ts). */
function noteServerTime(next: GateState, seen: SeenServerTime | undefined): void {
  if (!seen || seen.seenServerMs! <= (next.seenServerMs ?? Number.NEGATIVE_INFINITY)) return;
  delete next.seenAtLocalMs;
  delete next.seenOnMonotonic;
  Object.assign(next, seen);
}

/**
 * A success with no headers: the server states no limit, unless the key showed one lately;
 * then the limit is unknown, and requests go one at a time, each learning (decideSend's
 * probe). It may still have one it does not state: a pace ramps up to find it (pacing.ts).
 */
function learnNoHeaders(state: GateState, next: GateState, nowMs: number, sentGapMs: number) {
  const recent = next.limitSeenAtMs !== undefined && nowMs - next.limitSeenAtMs < LIMIT_MEMORY_MS;
  if (recent) delete next.unlimited;
  else next.unlimited = true;
  const pace = next.pace
    ? paceAccepted(next.pace, sentGapMs, nowMs)
    : !state.unlimited && startPace(nowMs);
  if (pace) next.pace = pace;
  else delete next.pace;
}

function learnAnswer(
  state: GateState,
  id: string,
  nowMs: number,
  answer: Answer,
  random: () => number,
): GateState {
  const claimEnded = state.inFlight?.[id]?.ended;
  const sentGapMs = state.inFlight?.[id]?.gapMs ?? 0;
  const next = live(releaseSend(state, id), nowMs);
  noteServerTime(next, answer.seen);
  const refused = answer.status === 429 || answer.status === 503;
  const explained = explainedByQuota(next, answer, nowMs);
  // A refusal whose window says there is budget contradicts itself: its window tells nothing.
  const window = refused && !explained ? undefined : answer.window;
  if (window || answer.status === 429) next.limitSeenAtMs = nowMs;
  if (window) {
    delete next.unlimited;
    delete next.pace;
    const known = next.quota;
    const unsent = unsentOf(window, state, next, id);
    next.quota = known
      ? {
          limit: window.limit,
          resetAtMs: Math.max(known.resetAtMs, window.resetAtMs),
          remaining: Math.max(known.remaining, unsent),
        }
      : { ...window, remaining: unsent };
  } else if (!refused) {
    learnNoHeaders(state, next, nowMs, sentGapMs);
  }

  if (!refused) {
    // A success ends a streak of refusals; a gateway's 502 or 504 neither ends nor adds to it.
    if (answer.status < 500) delete next.refusals;
    return next;
  }

  delete next.unlimited;
  const counts = countsAsRefusal(live(state, nowMs), claimEnded, answer, nowMs);
  const quota = next.quota;
  let waitMs: number;
  if (explained) {
    // The window is used up: wait for its Reset, as for any used-up window.
    if (quota) next.quota = { ...quota, remaining: 0 };
    const resetInMs = quota && quota.resetAtMs > nowMs ? quota.resetAtMs - nowMs : 0;
    waitMs = Math.max(answer.retryAfterMs ?? 0, resetInMs, BACKOFF_BASE_MS);
  } else {
    // Not the quota: what pets knew of the window is wrong; after the wait, one request
    // learns it again. Each refusal in a row waits at least the server's Retry-After and
    // double the last, with jitter; 0, past or unreadable Retry-After waits the least.
    delete next.quota;
    // With no rate headers, the 429 teaches the pace (pacing.ts), whose gap is the least wait
    // of the first refusal in a row; the next wait at least BACKOFF_BASE_MS, doubling.
    const paced = answer.status === 429 && !answer.window && next.pace !== undefined;
    if (paced) next.pace = paceRefused(next.pace!, sentGapMs, nowMs);
    const firstPaced = paced && !next.refusals;
    const floor = Math.max(
      answer.retryAfterMs ?? 0,
      counts ? 2 * (next.refusals?.lastWaitMs ?? 0) : 0,
      firstPaced ? next.pace!.gapMs : BACKOFF_BASE_MS,
    );
    waitMs = counts ? Math.ceil(floor * (1 + BACKOFF_JITTER * random())) : floor;
    if (counts) {
      const streak = next.refusals;
      next.refusals = {
        count: (streak?.count ?? 0) + 1,
        sinceMs: streak?.sinceMs ?? nowMs,
        lastWaitMs: waitMs,
        status: answer.status as 429 | 503,
        ended: next.ended ?? 0,
      };
    }
  }
  next.cooldownUntilMs = Math.max(nowMs + waitMs, next.cooldownUntilMs ?? 0);
  if (answer.status === 429 && answer.code !== undefined) next.cooldownCode = answer.code;
  return next;
}
