import { RATE_LIMIT_HEADERS } from '../api/contract.js';
import { parseRateLimit } from '../http/rate-limit-headers.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { headerValue, type HttpResponse } from '../http/types.js';
import type { Quota } from './policy.js';

export interface RateHeaders {
  quota?: Quota;
  retryAfterMs?: number;
}

/**
 * Reads X-RateLimit-* and Retry-After against the server's own clock (its Date header), so
 * a machine whose clock is off still waits the right time. Date has whole seconds, so the
 * server may be up to a second ahead of what it says: Reset is placed that second later,
 * never earlier.
 */
export function readRateHeaders(headers: HttpResponse['headers'], nowMs: number): RateHeaders {
  if (headers[RATE_LIMIT_HEADERS.reset] === undefined && headers['retry-after'] === undefined)
    return {};
  const date = Date.parse(headerValue(headers, 'date') ?? '');
  const serverNowMs = Number.isNaN(date) ? nowMs : date;
  const offsetMs = serverNowMs - nowMs;
  const serverQuota = parseRateLimit(headers, serverNowMs);
  const retryAfterMs = parseRetryAfter(headerValue(headers, 'retry-after'), serverNowMs);
  return {
    ...(serverQuota
      ? { quota: { ...serverQuota, resetAtMs: serverQuota.resetAtMs - offsetMs } }
      : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}
