const UNKNOWN_LIMIT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 16;

/**
 * In-flight requests to use when --concurrency is not given: enough to keep up with the
 * known per-minute limit at a second per request, at least 1, at most 16. With no known
 * limit, 8: the gate paces whatever the first answers reveal.
 */
export function defaultConcurrency(state: { quota?: { limit: number } } | undefined): number {
  const limit = state?.quota?.limit;
  if (limit === undefined) return UNKNOWN_LIMIT_CONCURRENCY;
  return Math.min(MAX_CONCURRENCY, Math.max(1, Math.ceil(limit / 60)));
}
