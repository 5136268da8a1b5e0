// The rate-limit policy as pure functions of (state, headers, now): what the gate knows about
// a key, when the next request may go, and how long to cool down after a 429. The gate
// (gate.ts) only carries out what these decide, so every timing rule is tested by table.

/** The server's X-RateLimit-* view, with Reset moved onto this machine's clock. */
export interface Quota {
  limit: number;
  remaining: number;
  resetAtMs: number;
}

export interface GateState {
  quota?: Quota;
  /** Nothing is sent on this key before this time (after a 429). */
  cooldownUntilMs?: number;
  /** What the server said with the 429 that started the cooldown (e.g. key_banned). */
  cooldownCode?: string;
  /** 429s in a row: the exponent of the backoff. */
  consecutive429s: number;
  /** The latest send reserved by any request on this key. */
  lastSendAtMs?: number;
}

export const EMPTY_STATE: GateState = { consecutive429s: 0 };

export type WaitReason = 'cooldown' | 'quota' | 'pacing';

export interface Reservation {
  state: GateState;
  waitMs: number;
  reason?: WaitReason;
}

// Pacing spreads a per-minute budget; a window that resets hours away is a daily quota,
// where spreading would make a single command wait for minutes. Those are only enforced
// at Remaining 0.
export const PACING_HORIZON_MS = 5 * 60_000;

/**
 * Reserves the next send: the earliest time that respects any cooldown, an exhausted quota,
 * and an even spread of the remaining budget until Reset. The returned state counts the
 * reserved request against the budget, so concurrent callers get successive slots.
 */
export function reserveSend(state: GateState, nowMs: number): Reservation {
  let at = nowMs;
  let reason: WaitReason | undefined;
  if (state.cooldownUntilMs !== undefined && state.cooldownUntilMs > at) {
    at = state.cooldownUntilMs;
    reason = 'cooldown';
  }
  let quota = state.quota && state.quota.resetAtMs > at ? state.quota : undefined;
  if (quota && quota.remaining <= 0) {
    at = quota.resetAtMs;
    reason = 'quota';
    quota = undefined; // a new window starts at Reset; its size is learnt from the next answer
  } else if (quota) {
    const last = state.lastSendAtMs;
    if (last !== undefined && quota.resetAtMs - at <= PACING_HORIZON_MS) {
      const paced = last + (quota.resetAtMs - last) / quota.remaining;
      if (paced > at) {
        at = paced;
        reason = 'pacing';
      }
    }
    quota = { ...quota, remaining: quota.remaining - 1 };
  }
  return {
    state: { ...state, quota, lastSendAtMs: Math.max(at, state.lastSendAtMs ?? at) },
    waitMs: Math.ceil(at - nowMs),
    reason,
  };
}

/**
 * Takes in what a response said. Answers to concurrent requests arrive out of order, so
 * within one window the lowest Remaining wins.
 */
export function observeResponse(
  state: GateState,
  status: number,
  quota: Quota | undefined,
): GateState {
  let next = { ...state };
  if (quota) {
    const sameWindow = state.quota && Math.abs(state.quota.resetAtMs - quota.resetAtMs) < 1_000;
    next.quota = sameWindow
      ? {
          ...quota,
          remaining: Math.min(quota.remaining, state.quota?.remaining ?? quota.remaining),
        }
      : quota;
  }
  if (status !== 429) next = { ...next, consecutive429s: 0 };
  return next;
}

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
/** With no Retry-After and no Reset, the least a 429 earns before the next try. */
export const NO_INFORMATION_WAIT_MS = 1_000;

export interface Cooldown {
  state: GateState;
  waitMs: number;
  /** The part of the wait the server asked for, when it said. */
  serverWaitMs?: number;
}

/**
 * After a 429: the server's wait (Retry-After, else the Reset of an exhausted quota), plus
 * exponential full jitter that grows with each 429 in a row. Never below the server's wait.
 */
export function cooldownAfter429(
  state: GateState,
  nowMs: number,
  retryAfterMs: number | undefined,
  code: string | undefined,
  random: () => number,
): Cooldown {
  const streak = state.consecutive429s + 1;
  const quota = state.quota;
  const serverWaitMs =
    retryAfterMs ??
    (quota && quota.remaining === 0 && quota.resetAtMs > nowMs
      ? quota.resetAtMs - nowMs
      : undefined);
  const jitterMs = random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (streak - 1));
  const waitMs = Math.ceil((serverWaitMs ?? NO_INFORMATION_WAIT_MS) + jitterMs);
  const until = Math.max(nowMs + waitMs, state.cooldownUntilMs ?? 0);
  return {
    state: { ...state, consecutive429s: streak, cooldownUntilMs: until, cooldownCode: code },
    waitMs: until - nowMs,
    serverWaitMs,
  };
}
