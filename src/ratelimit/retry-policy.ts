import type { HttpMethod } from '../http/types.js';

export type AttemptOutcome =
  { kind: 'response'; status: number } | { kind: 'network'; mayHaveArrived: boolean };

/** rate-limited: wait as the server says; retry: back off and resend; final: hand it back. */
export type RetryDecision = 'rate-limited' | 'retry' | 'final';

const RETRIABLE_GET_STATUSES = new Set([502, 503, 504]);

/**
 * The contract's retry rules. A GET may be resent after a gateway error or a network
 * failure. A POST is resent only after a 429, or when the connection was never made: one
 * that may have reached the server could have created the pet.
 */
export function retryDecision(method: HttpMethod, outcome: AttemptOutcome): RetryDecision {
  if (outcome.kind === 'response') {
    if (outcome.status === 429) return 'rate-limited';
    return method === 'GET' && RETRIABLE_GET_STATUSES.has(outcome.status) ? 'retry' : 'final';
  }
  return method === 'GET' || !outcome.mayHaveArrived ? 'retry' : 'final';
}

export const MAX_ATTEMPTS = 5;
const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 8_000;

/** Full-jitter exponential backoff for gateway and network failures, at least 50 ms. */
export function retryBackoffMs(attempt: number, random: () => number): number {
  return Math.ceil(50 + random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1)));
}
