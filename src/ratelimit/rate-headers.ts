// The one reader of rate-limit headers: a pure function of (answer, the server's now); only the
// rate gate calls it. Every dialect deployed limiters send is read into one window (Limit,
// Remaining, Reset); `pets help rate-limits` shows each with an example:
//   X-RateLimit-Limit/-Remaining/-Reset   the contract; express-rate-limit's legacy headers,
//                                         @fastify/rate-limit, koa-ratelimit (X-Rate-Limit-* too)
//   RateLimit-Limit/-Remaining/-Reset     IETF draft 6, with RateLimit-Policy: 20;w=10
//   RateLimit: limit=20, remaining=19, reset=10          IETF draft 7, with the same Policy
//   RateLimit: "p";r=19;t=10, RateLimit-Policy: "p";q=20;w=10   IETF draft 8 and later
//   Retry-After: seconds or an HTTP-date, on any answer (429 and 503 alike)
// Reset, in any dialect, is an HTTP-date or read by its magnitude against the server's now:
// Unix seconds or milliseconds, else seconds (or milliseconds) from now.
//
// Headers that contradict themselves are no information, never a reason to wait: an answer the
// limiter let through (anything but 429 and 503) proves the window allowed it, so its Limit 0,
// a Remaining above the Limit, or a Reset of 0 (a mock's placeholders: no limiter's window
// ends at the epoch) tell nothing; the answer is believed over its headers. A header that is
// plausible and alarming is obeyed: Remaining 0 with a Reset ahead, or with a Reset that does
// not read or is already past (a gateway's stale clock, whose Remaining may still be true:
// sending on it gets 429s in a row), until a window has surely passed.

import type { HttpResponse } from '../http/types.js';

type Headers = HttpResponse['headers'];

/** The contract's rate-limit headers: on every response, Reset as a Unix time in seconds. */
export const RATE_LIMIT_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
} as const;

/** The server's window, with Reset on the server's clock. */
export interface ServerWindow {
  limit: number;
  remaining: number;
  resetAtMs: number;
}

export interface RateHeaders {
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
 * A Reset that cannot be read (garbage, missing), with no window length given: the window is
 * taken to end this long after the answer, when a window of the contract's (a minute) has
 * surely passed. Remaining is still honoured: at 0 nothing goes until then, and then one
 * request asks again.
 */
export const UNREADABLE_RESET_WAIT_MS = 60_000;

// A Reset further than this is broken rather than a reason to wait: a daily window resets at
// most a day away, plus slack for clocks.
const MAX_RESET_DISTANCE_MS = 26 * 3600 * 1000;

// Date and a Reset in seconds are each cut to the second, so a Reset may read up to this much
// before the server's now while the window it names is still the current one.
const RESET_ROUNDING_MS = 2_000;

/**
 * A wait longer than 50 years is kept as 50 years: still a reason to give up (exit 5), and
 * still a moment the state keeps (before 2100).
 */
export const LONGEST_WAIT_MS = 50 * 365 * 24 * 3600 * 1000;

const HTTP_DATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

function first(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function wholeNumber(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  if (trimmed === undefined || !/^\d{1,15}$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/**
 * Retry-After in ms from `serverNowMs`: delta-seconds (a fraction rounds up to the next whole
 * second), or an HTTP-date. A value too large to mean anything is kept as a very long wait:
 * the caller gives up (exit 5) rather than sending early. undefined: no value could be read.
 */
export function parseRetryAfter(text: string, serverNowMs: number): number | undefined {
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value))
    return Math.min(Math.ceil(Number(value)) * 1000, LONGEST_WAIT_MS);
  if (!HTTP_DATE.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - serverNowMs), LONGEST_WAIT_MS);
}

/** Retry-After across all its values (several headers, or a list): the largest counts. */
function retryAfter(headers: Headers, serverNowMs: number): number | undefined {
  const raw = headers['retry-after'];
  if (raw === undefined) return undefined;
  // An HTTP-date holds a comma, so try each whole value first, then its comma-separated parts.
  const waits = (Array.isArray(raw) ? raw : [raw]).flatMap((text) => {
    const whole = parseRetryAfter(text, serverNowMs);
    return whole !== undefined
      ? [whole]
      : text.split(',').map((part) => parseRetryAfter(part, serverNowMs));
  });
  const known = waits.filter((ms): ms is number => ms !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}

/** One dialect's fields, as sent. */
interface Fields {
  limit?: number;
  remaining?: number;
  reset?: string;
  /** The window's length in seconds (RateLimit-Policy's w=), when given. */
  windowSeconds?: number;
}

/**
 * A header's list members (repeated headers, or joined by commas), each as its item and
 * parameters: `"p";r=5;t=30` → item p, {r: 5, t: 30}; `limit=20` → item 20 under key limit.
 */
function members(headers: Headers, name: string) {
  const value = headers[name];
  const texts = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return texts
    .flatMap((text) => text.split(','))
    .map((text) => {
      const [head = '', ...rest] = text.split(';').map((part) => part.trim());
      const pair = (part: string) => {
        const at = part.indexOf('=');
        return at < 0 ? ['', part] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
      };
      const [key, item] = pair(head);
      const params = new Map(rest.map((part) => pair(part) as [string, string]));
      return { key, item: item!.replace(/^"|"$/g, ''), params };
    });
}

/**
 * X-RateLimit-* (or X-Rate-Limit-*), and the draft 6 RateLimit-*: Reset in whichever form.
 * Each limiter on the way (a gateway's, the app's) may add its own, repeated or joined by
 * commas: the one with the fewest requests remaining binds, with its Limit and Reset.
 */
function separateFields(headers: Headers, prefix: string): Fields | undefined {
  // RateLimit-Limit may carry a policy after its number ("100, 100;w=60"): the number counts.
  const values = (name: string) =>
    members(headers, prefix + name).map(({ key, item }) => (key ? `${key}=${item}` : item));
  const remainings = values('remaining').map(wholeNumber);
  const least = Math.min(...remainings.map((n) => n ?? Infinity));
  if (least === Infinity) return undefined;
  const at = remainings.indexOf(least);
  // A Reset may be an HTTP-date, which holds a comma.
  const reset = first(headers, prefix + 'reset')?.trim();
  return {
    limit: wholeNumber(values('limit')[at] ?? values('limit')[0]),
    remaining: least,
    reset: reset && HTTP_DATE.test(reset) ? reset : values('reset')[at],
  };
}

/**
 * The IETF drafts' RateLimit field: draft 8's `"p";r=…;t=…` with `RateLimit-Policy:
 * "p";q=…;w=…` (of several policies, the one with the fewest requests remaining binds), or
 * draft 7's `limit=…, remaining=…, reset=…` with `RateLimit-Policy: N;w=S`.
 */
function rateLimitField(headers: Headers): Fields | undefined {
  const limits = members(headers, 'ratelimit');
  const policies = members(headers, 'ratelimit-policy');
  const byKey = new Map(limits.map((member) => [member.key, member.item] as const));
  if (byKey.has('remaining')) {
    const limit = wholeNumber(byKey.get('limit'));
    const policy = policies.find((member) => wholeNumber(member.item) === limit) ?? policies[0];
    return {
      limit,
      remaining: wholeNumber(byKey.get('remaining')),
      reset: byKey.get('reset'),
      windowSeconds: wholeNumber(policy?.params.get('w')),
    };
  }
  let binding: Fields | undefined;
  for (const { item, params } of limits) {
    const remaining = wholeNumber(params.get('r'));
    if (remaining === undefined || (binding && binding.remaining! <= remaining)) continue;
    const policy = policies.find((member) => member.item === item)?.params;
    const [limit, windowSeconds] = [policy?.get('q'), policy?.get('w')].map(wholeNumber);
    binding = { limit, remaining, reset: params.get('t'), windowSeconds };
  }
  return binding;
}

/** The draft 6 fields, with the window length from their RateLimit-Policy. */
function draft6Fields(headers: Headers): Fields | undefined {
  const fields = separateFields(headers, 'ratelimit-');
  const policy = members(headers, 'ratelimit-policy')[0];
  return fields && { ...fields, windowSeconds: wholeNumber(policy?.params.get('w')) };
}

/**
 * Reset as a moment on the server's clock: an HTTP-date, or read by its magnitude against the
 * server's now: a Unix time in seconds (the contract's form), or in milliseconds; else seconds from now (as
 * the IETF drafts and many APIs write it), or milliseconds from now when as seconds it would
 * be more than a day. A number that fits no reading (garbage, too far): undefined.
 */
function readReset(text: string | undefined, serverNowMs: number) {
  const trimmed = text?.trim() ?? '';
  const near = (atMs: number) => Math.abs(atMs - serverNowMs) <= MAX_RESET_DISTANCE_MS;
  if (HTTP_DATE.test(trimmed))
    return near(Date.parse(trimmed)) ? { atMs: Date.parse(trimmed) } : undefined;
  if (!/^\d{1,15}(\.\d+)?$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  if (near(value * 1000)) return { atMs: Math.ceil(value * 1000) };
  if (near(value)) return { atMs: Math.ceil(value) };
  // 0 is the epoch as much as "now": either way no window still running.
  if (value === 0) return { atMs: 0 };
  const fromNowMs = [value * 1000, value].find((ms) => ms <= MAX_RESET_DISTANCE_MS);
  return fromNowMs === undefined
    ? undefined
    : { atMs: serverNowMs + Math.ceil(fromNowMs), fromNow: true as const };
}

/**
 * What an answer says of the key's limits, with every moment on the server's clock, whose now
 * is `serverNowMs`.
 */
export function readRateHeaders(
  answer: Pick<HttpResponse, 'status' | 'headers'>,
  serverNowMs: number,
): RateHeaders {
  const { headers } = answer;
  const result: RateHeaders = {};
  const retryAfterMs = retryAfter(headers, serverNowMs);
  if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
  const fields =
    separateFields(headers, 'x-ratelimit-') ??
    separateFields(headers, 'x-rate-limit-') ??
    rateLimitField(headers) ??
    draft6Fields(headers);
  const remaining = fields?.remaining;
  if (remaining === undefined) return result;
  const limit = fields!.limit ?? remaining;
  const reset = readReset(fields!.reset, serverNowMs);
  const letThrough = answer.status !== 429 && answer.status !== 503;
  // Contradictions: see the head of this file.
  if (remaining > limit || (letThrough && (limit === 0 || reset?.atMs === 0))) return result;
  if (reset && reset.atMs >= serverNowMs - RESET_ROUNDING_MS) {
    if (reset.fromNow) result.resetFromNow = true;
    result.window = { limit, remaining, resetAtMs: reset.atMs };
  } else {
    // Remaining still counts; the window ends, as far as pets knows, when one has surely
    // passed since this answer.
    const windowMs = (fields!.windowSeconds ?? 0) * 1000 || UNREADABLE_RESET_WAIT_MS;
    result.window = { limit, remaining, resetAtMs: serverNowMs + windowMs };
  }
  return result;
}

/** The server's Date, when it sent one that reads. */
export function readDate(headers: Headers): number | undefined {
  const date = Date.parse(first(headers, 'date') ?? '');
  return Number.isNaN(date) ? undefined : date;
}
