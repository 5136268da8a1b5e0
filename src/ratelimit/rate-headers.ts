// The one reader of rate-limit headers: X-RateLimit-* (the contract), the IETF draft's
// RateLimit and RateLimit-Policy fields (and its earlier RateLimit-Limit/-Remaining/-Reset),
// and Retry-After. Pure functions of (headers, now); only the rate gate calls them.

import type { HttpResponse } from '../http/types.js';

type Headers = HttpResponse['headers'];

/** The contract's rate-limit headers: on every response, Reset as a Unix time in seconds. */
export const RATE_LIMIT_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
} as const;

/** The server's window, with Reset on this machine's clock. */
export interface ServerWindow {
  limit: number;
  remaining: number;
  resetAtMs: number;
}

export interface RateHeaders {
  /**
   * How far the server's clock is ahead of this one, as best known (never more than it is);
   * undefined when neither this answer nor an earlier one had a Date.
   */
  clockOffsetMs?: number;
  window?: ServerWindow;
  /** The server's wait, from Retry-After: the largest of its values, never shortened. */
  retryAfterMs?: number;
  /**
   * The window's Reset was counted from the server's now (seconds from now), not named as a
   * moment of its clock: placed by a Date, it is as uncertain as the Date.
   */
  resetFromNow?: true;
}

/**
 * A Reset that cannot be read (garbage, missing): the window is taken to end this long after
 * the latest answer, when a window of the contract's (a minute) has surely passed. Remaining
 * is still honoured: at 0 nothing goes until then, and then one request asks again.
 */
export const UNREADABLE_RESET_WAIT_MS = 60_000;

// A Reset further than this is broken rather than a reason to wait: a daily window resets at
// most a day away, plus slack for clocks.
const MAX_RESET_DISTANCE_MS = 26 * 3600 * 1000;

/** Every value of a header: repeated headers come as arrays, or joined by commas. */
function values(headers: Headers, name: string): string[] {
  const value = headers[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((text) => text.split(','));
}

function first(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function wholeNumber(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  if (trimmed === undefined || !/^\d{1,15}$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** A wait longer than a century is kept as a century: still a reason to give up (exit 5). */
export const LONGEST_WAIT_MS = 100 * 365 * 24 * 3600 * 1000;

const HTTP_DATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Retry-After in ms from `serverNowMs`: delta-seconds (a fraction rounds up to the next whole
 * second), or an HTTP-date. A value too large to mean anything is kept as a very long wait:
 * the caller gives up (exit 5) rather than sending early. undefined: no value could be read.
 */
export function parseRetryAfter(text: string, serverNowMs: number): number | undefined {
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value))
    return Math.min(Math.ceil(Number(value)) * 1000, LONGEST_WAIT_MS);
  // A date: commas inside it were split off by values(); join them back before reading.
  if (!HTTP_DATE.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - serverNowMs), LONGEST_WAIT_MS);
}

/** Retry-After across all its values (several headers, or a list): the largest counts. */
function retryAfter(headers: Headers, serverNowMs: number): number | undefined {
  const raw = headers['retry-after'];
  if (raw === undefined) return undefined;
  const texts = Array.isArray(raw) ? raw : [raw];
  // An HTTP-date holds a comma, so try each whole value first, then its comma-separated parts.
  const waits = texts.flatMap((text) => {
    const whole = parseRetryAfter(text, serverNowMs);
    if (whole !== undefined) return [whole];
    return text.split(',').map((part) => parseRetryAfter(part, serverNowMs));
  });
  const known = waits.filter((ms): ms is number => ms !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}

interface Parsed {
  limit?: number;
  remaining?: number;
  /** Reset as a moment on the server's clock. */
  resetAtMs?: number;
  /** Reset was given as a time from the server's now. */
  fromNow?: boolean;
}

/** A number of seconds or milliseconds, perhaps with a fraction. */
function resetNumber(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  if (trimmed === undefined || !/^\d{1,15}(\.\d{1,6})?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

const near = (atMs: number, serverNowMs: number) =>
  Math.abs(atMs - serverNowMs) <= MAX_RESET_DISTANCE_MS;

// Date and a Reset in seconds are each cut to the second, so a Reset may read up to this much
// before the server's now while the window it names is still the current one.
const RESET_ROUNDING_MS = 2_000;

/**
 * Whether a Reset names the end of a window the server is in: near its now, and not past.
 * A Reset well before the server's own Date names no window: at Remaining 0 it would let a
 * request go at once, into the block.
 */
const currentReset = (atMs: number, serverNowMs: number) =>
  near(atMs, serverNowMs) && atMs >= serverNowMs - RESET_ROUNDING_MS;

/**
 * X-RateLimit-Reset as a moment on the server's clock, read by its magnitude against the
 * server's now (from its Date): a Unix time in seconds (the contract's form), or in
 * milliseconds; else seconds from now (as many APIs and the IETF draft write it), or
 * milliseconds from now when as seconds it would be more than a day. No reading fits garbage,
 * nor a time far from the server's now: undefined.
 */
function readReset(text: string | undefined, serverNowMs: number): Parsed {
  const value = resetNumber(text);
  if (value === undefined) return {};
  if (near(value * 1000, serverNowMs)) return { resetAtMs: Math.ceil(value * 1000) };
  if (near(value, serverNowMs)) return { resetAtMs: Math.ceil(value) };
  // 0 from now would say a used-up window is open already: more likely an epoch misread.
  if (value === 0) return {};
  // From now: in seconds, else in milliseconds, whichever is within a day.
  const fromNowMs = [value * 1000, value].find((ms) => ms <= MAX_RESET_DISTANCE_MS);
  return fromNowMs === undefined
    ? {}
    : { resetAtMs: serverNowMs + Math.ceil(fromNowMs), fromNow: true };
}

/** X-RateLimit-*: Reset in whichever form its magnitude tells. */
function contractFields(headers: Headers, serverNowMs: number): Parsed | undefined {
  const remaining = wholeNumber(first(headers, RATE_LIMIT_HEADERS.remaining));
  if (remaining === undefined) return undefined;
  return {
    limit: wholeNumber(first(headers, RATE_LIMIT_HEADERS.limit)),
    remaining,
    ...readReset(first(headers, RATE_LIMIT_HEADERS.reset), serverNowMs),
  };
}

/** A structured-field list member: `"name";r=5;t=30` → name and parameters. */
function member(text: string): { name: string; params: Map<string, string> } {
  const [name = '', ...params] = text.split(';').map((part) => part.trim());
  return {
    name: name.replace(/^"|"$/g, ''),
    params: new Map(
      params.map((param) => {
        const [key = '', value = ''] = param.split('=');
        return [key.trim(), value.trim()] as const;
      }),
    ),
  };
}

/**
 * The current draft: `RateLimit: "p";r=…;t=…` (remaining, seconds to reset) with
 * `RateLimit-Policy: "p";q=…;w=…` (quota, window). Of several policies, the one with the
 * fewest requests remaining binds.
 */
function draftFields(headers: Headers, serverNowMs: number): Parsed | undefined {
  const limits = values(headers, 'ratelimit').map(member);
  const policies = new Map(
    values(headers, 'ratelimit-policy')
      .map(member)
      .map((policy) => [policy.name, policy] as const),
  );
  let binding: Parsed | undefined;
  for (const { name, params } of limits) {
    const remaining = wholeNumber(params.get('r'));
    if (remaining === undefined || (binding && binding.remaining! <= remaining)) continue;
    const seconds = wholeNumber(params.get('t'));
    binding = {
      limit: wholeNumber(policies.get(name)?.params.get('q')),
      remaining,
      resetAtMs: seconds === undefined ? undefined : serverNowMs + seconds * 1000,
      fromNow: true,
    };
  }
  return binding;
}

/** The earlier draft: RateLimit-Limit, -Remaining, and -Reset in seconds from now. */
function earlierDraftFields(headers: Headers, serverNowMs: number): Parsed | undefined {
  // RateLimit-Limit may carry a policy after its number ("100, 100;w=60"): the number counts.
  const leading = (name: string) => wholeNumber(first(headers, name)?.split(/[,;]/)[0]);
  const remaining = leading('ratelimit-remaining');
  if (remaining === undefined) return undefined;
  const seconds = leading('ratelimit-reset');
  return {
    limit: leading('ratelimit-limit'),
    remaining,
    resetAtMs: seconds === undefined ? undefined : serverNowMs + seconds * 1000,
    fromNow: true,
  };
}

/** The server's Date, when it sent one that reads. */
export function readDate(headers: Headers): number | undefined {
  const date = Date.parse(first(headers, 'date') ?? '');
  return Number.isNaN(date) ? undefined : date;
}

/**
 * How far the server's clock is ahead of this one. Its Date has whole seconds, so one answer
 * tells the offset only to within a second, and always as less than it is (Date is the
 * server's time rounded down, and the answer took time to arrive). The largest sample is the
 * best: each answer that comes just after the server's second ticked brings the estimate
 * closer. A sample far from the estimate means another clock (the server's was reset), and
 * starts again.
 */
function clockOffsetMs(
  headers: Headers,
  nowMs: number,
  knownOffsetMs?: number,
): number | undefined {
  const date = readDate(headers);
  if (date === undefined) return knownOffsetMs;
  const sample = date - nowMs;
  if (knownOffsetMs === undefined || Math.abs(sample - knownOffsetMs) > 2_000) return sample;
  return Math.max(sample, knownOffsetMs);
}

// A Date up to a second behind this clock, plus the time the answer took, agrees with it.
const DATE_AGREEMENT_MS = 1_100;

/**
 * The offset to place the server's moments with. A server whose Date agrees with this clock
 * to within the Date's own second is taken to share it: most do, and a wait is then not
 * stretched by up to a second for the Date's rounding. A clock that is off by less than that
 * cannot be told from this one; at worst that costs a 429 as a window opens, whose Retry-After
 * is then obeyed, never a send into a known block.
 */
export function placingOffsetMs(offsetMs: number): number {
  return offsetMs <= 0 && offsetMs > -DATE_AGREEMENT_MS ? 0 : offsetMs;
}

/**
 * What a response says of the key's limits, on this machine's clock at `nowMs`, given what
 * earlier answers told of the server's clock (`knownOffsetMs`); `placedOffsetMs`, when given, is the
 * offset to place its moments with, as the caller knows it better (server-clock.ts).
 */
export function readRateHeaders(
  headers: Headers,
  nowMs: number,
  knownOffsetMs?: number,
  placedOffsetMs?: number,
): RateHeaders {
  const learntOffsetMs = clockOffsetMs(headers, nowMs, knownOffsetMs);
  const offsetMs = placedOffsetMs ?? placingOffsetMs(learntOffsetMs ?? 0);
  const serverNowMs = nowMs + offsetMs;
  const parsed =
    contractFields(headers, serverNowMs) ??
    draftFields(headers, serverNowMs) ??
    earlierDraftFields(headers, serverNowMs);
  const result: RateHeaders = learntOffsetMs === undefined ? {} : { clockOffsetMs: learntOffsetMs };
  const retryAfterMs = retryAfter(headers, serverNowMs);
  if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
  if (!parsed || parsed.remaining === undefined) return result;

  // More remaining than the limit is a broken header, not information.
  if (parsed.limit !== undefined && parsed.remaining > parsed.limit) return result;
  const limit = parsed.limit ?? parsed.remaining;
  const resetOk = parsed.resetAtMs !== undefined && currentReset(parsed.resetAtMs, serverNowMs);
  if (resetOk && parsed.fromNow) result.resetFromNow = true;
  result.window = resetOk
    ? { limit, remaining: parsed.remaining, resetAtMs: parsed.resetAtMs! - offsetMs }
    : // Remaining still counts; the window ends, as far as pets knows, when one has surely
      // passed since this answer.
      { limit, remaining: parsed.remaining, resetAtMs: nowMs + UNREADABLE_RESET_WAIT_MS };
  return result;
}
