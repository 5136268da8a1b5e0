// Retry-After is delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Anything else, and any
// absurd value, is "no information": the caller falls back to its own policy, never hangs.

const MAX_SENSIBLE_WAIT_MS = 7 * 24 * 3600 * 1000;

/** Milliseconds to wait from `nowMs`, or undefined when the header says nothing usable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    return ms <= MAX_SENSIBLE_WAIT_MS ? ms : undefined;
  }
  // Date.parse accepts loose forms like "5"; demand the shape of an HTTP-date first.
  if (!/^[A-Za-z]{3},? +\d{1,2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) {
    return undefined;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  const ms = at - nowMs;
  if (ms > MAX_SENSIBLE_WAIT_MS) return undefined;
  return Math.max(0, ms);
}
