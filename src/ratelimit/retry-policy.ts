import type { HttpMethod } from '../http/types.js';

export type AttemptOutcome =
  { kind: 'response'; status: number } | { kind: 'network'; mayHaveArrived: boolean };

/**
 * rate-limited: a refusal (429, or 503 to a GET) that the whole key waits out, as the server
 * says and backing off (policy.ts); retry: back off and resend; final: hand it back.
 */
export type RetryDecision = 'rate-limited' | 'retry' | 'final';

const RETRIABLE_GET_STATUSES = new Set([502, 504]);

/**
 * The contract's retry rules. A GET may be resent after a gateway error or a network
 * failure. A POST is resent only after a 429, or when the connection was never made: one
 * that may have reached the server could have created the pet.
 */
export function retryDecision(method: HttpMethod, outcome: AttemptOutcome): RetryDecision {
  if (outcome.kind === 'response') {
    if (outcome.status === 429) return 'rate-limited';
    // A 503 may have followed a create that reached the server: never resent.
    if (outcome.status === 503) return method === 'GET' ? 'rate-limited' : 'final';
    return method === 'GET' && RETRIABLE_GET_STATUSES.has(outcome.status) ? 'retry' : 'final';
  }
  return method === 'GET' || !outcome.mayHaveArrived ? 'retry' : 'final';
}

export const MAX_ATTEMPTS = 5;
// A refused connection means nothing listens there, and a name that does not resolve is not
// there: one more try covers a server restarting or a resolver's hiccup, more would only keep
// the user waiting for the same answer. The same for a proxy out of reach, or one that hangs up.
const ONE_RETRY = new Set([
  'connection_refused',
  'name_not_resolved',
  'proxy_unreachable',
  'proxy_closed',
]);

/** How many attempts a request gets when its failures are network errors with `code`. */
export function networkAttempts(code: string): number {
  return ONE_RETRY.has(code) ? 2 : MAX_ATTEMPTS;
}
const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 8_000;

/** Full-jitter exponential backoff for gateway and network failures, at least 50 ms. */
export function retryBackoffMs(attempt: number, random: () => number): number {
  return Math.ceil(50 + random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1)));
}
