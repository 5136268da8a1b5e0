/**
 * How a stored key is shown: its last 4 characters, and only when the key is long enough that
 * four characters give little away.
 */
export function keyHint(key: string | undefined): string {
  if (!key) return '(none)';
  return key.length >= 12 ? `****${key.slice(-4)}` : '****';
}
