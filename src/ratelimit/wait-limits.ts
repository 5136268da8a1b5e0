// How long a command may wait on rate limits, as pure functions: which limits a run gets, and
// whether one more wait fits them. The gate asks before every wait; the simulation drives the
// same functions.

export interface WaitLimits {
  /** The most all the command's waits may add up to (--max-wait); Infinity: no cap. */
  maxWaitMs: number;
  /** The longest a single wait may be; a further next send stops the command. */
  eachWaitMs: number;
  /** A ban stops the command, however short. */
  stopOnBan: boolean;
}

/** A short command (one request, or a few) waits this long in all, unless --max-wait says. */
export const SHORT_MAX_WAIT_MS = 60_000;

/**
 * The longest a batch waits, unattended, for its next send: an hour's window (the longest in
 * common use: per-minute and per-hour plans), plus five minutes for clocks and rounding. A
 * next send further away is a daily quota used up, a ban or a Retry-After of hours: a person
 * should choose when to go on, and a machine left waiting for hours tends to sleep, lose its
 * network or be closed. The batch stops (exit 5), saying when it may resume.
 */
export const UNATTENDED_WAIT_MS = 65 * 60_000;

/**
 * The limits of a run. An explicit --max-wait caps all of its waiting, and nothing else; by
 * default a short command waits 60 s in all, and a batch as many windows as its records need,
 * each wait up to UNATTENDED_WAIT_MS, and never out a ban.
 */
export function waitLimits(run: { batch: boolean; maxWaitSeconds?: number }): WaitLimits {
  const totalOnly = { eachWaitMs: Number.POSITIVE_INFINITY, stopOnBan: false };
  if (run.maxWaitSeconds !== undefined)
    return { maxWaitMs: run.maxWaitSeconds * 1000, ...totalOnly };
  return run.batch
    ? { maxWaitMs: Number.POSITIVE_INFINITY, eachWaitMs: UNATTENDED_WAIT_MS, stopOnBan: true }
    : { maxWaitMs: SHORT_MAX_WAIT_MS, ...totalOnly };
}

/** Why a command does not take a wait: its total, one wait's bound, or a ban. */
export type WaitRefusal = 'max-wait' | 'unattended' | 'ban';

/**
 * Whether a wait of `waitMs` fits `limits`, given that with it the command will have waited
 * `totalMs` in all; undefined when it does, else why not.
 */
export function refuseWait(
  limits: WaitLimits,
  wait: { waitMs: number; totalMs: number; banned: boolean },
): WaitRefusal | undefined {
  if (wait.banned && limits.stopOnBan) return 'ban';
  if (wait.waitMs > limits.eachWaitMs) return 'unattended';
  if (wait.totalMs > limits.maxWaitMs) return 'max-wait';
  return undefined;
}
