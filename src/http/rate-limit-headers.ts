import { RATE_LIMIT_HEADERS } from '../api/contract.js';
import { headerValue, type HttpResponse } from './types.js';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window resets, in ms since the epoch. */
  resetAtMs: number;
}

// Reset is a Unix timestamp per the spec. A reset far in the past or future is a broken
// header, not a reason to wait. A per-day window can reset a full day away, rounded up, and
// clocks drift, so the bound is a day plus two hours.
const MAX_RESET_DISTANCE_MS = 26 * 3600 * 1000;

function nonNegativeInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

/** The X-RateLimit-* state of a response, or undefined when the headers are missing or broken. */
export function parseRateLimit(
  headers: HttpResponse['headers'],
  nowMs: number,
): RateLimitState | undefined {
  const limit = nonNegativeInteger(headerValue(headers, RATE_LIMIT_HEADERS.limit));
  const remaining = nonNegativeInteger(headerValue(headers, RATE_LIMIT_HEADERS.remaining));
  const resetSeconds = nonNegativeInteger(headerValue(headers, RATE_LIMIT_HEADERS.reset));
  if (limit === undefined || remaining === undefined || resetSeconds === undefined) {
    return undefined;
  }
  const resetAtMs = resetSeconds * 1000;
  if (remaining > limit || Math.abs(resetAtMs - nowMs) > MAX_RESET_DISTANCE_MS) return undefined;
  return { limit, remaining, resetAtMs };
}
