/**
 * Replaces every known key with *** so that no path can print one, also where a server echoes
 * it back: as it is, and as JSON writes it (a key may hold a quote or a backslash).
 * Every line that can carry server text goes through here: top-level errors, the client's
 * error messages, and all of a run's stdout and stderr.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    result = result.split(secret).join('***');
    const inJson = JSON.stringify(secret).slice(1, -1);
    if (inJson !== secret) result = result.split(inJson).join('***');
  }
  return result;
}
