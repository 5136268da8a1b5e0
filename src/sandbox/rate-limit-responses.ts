import { RATE_LIMIT_HEADERS } from '../ratelimit/rate-headers.js';
import type { Admission, RateLimitState } from './rate-limiter.js';
import { errorResponse, type HeaderMap, type SandboxResponse } from './responses.js';

/**
 * X-RateLimit-* for a response: every response carries them (plan unlimited states a very
 * large limit). Reset is rounded up so that a client waiting for it is never early.
 */
export function rateLimitHeaders(state: RateLimitState): HeaderMap {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(state.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(state.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(Math.ceil(state.resetsAt / 1000)),
  };
}

/** The 429 for a refused request: Retry-After in whole seconds, rounded up. */
export function rateLimitedResponse(
  admission: Exclude<Admission, { outcome: 'admitted' }>,
  now: number,
): SandboxResponse {
  const seconds = Math.max(1, Math.ceil((admission.retryAt - now) / 1000));
  const when = `retry after ${seconds} seconds (${new Date(admission.retryAt).toISOString()})`;
  const headers = { 'retry-after': String(seconds) };
  if (admission.outcome === 'banned') {
    return errorResponse(
      429,
      'key_banned',
      `this API key is temporarily banned for sending requests during a rate-limit cooldown; ${when}`,
      headers,
    );
  }
  const message =
    admission.exceeded !== undefined
      ? `rate limit exceeded (${admission.exceeded}); ${when}`
      : `rate limit exceeded and this key is cooling down; ${when}. ` +
        `Requests sent before then count toward a temporary ban ` +
        `(${admission.strikes} of ${admission.strikesBeforeBan}).`;
  return errorResponse(429, 'rate_limited', message, headers);
}
