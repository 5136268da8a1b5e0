import { headerValue, type HttpSender } from './types.js';

/**
 * Wraps a sender so each attempt is written to `write` for --debug, with the values of the
 * `shown` response headers. The key is never shown.
 */
export function tracingSender(
  send: HttpSender,
  write: (line: string) => void,
  now: () => number,
  shown: readonly string[],
): HttpSender {
  return async (request) => {
    const started = now();
    const headers = Object.entries(request.headers)
      .map(([name, value]) => `${name}: ${name === 'authorization' ? 'Bearer ***' : value}`)
      .join('; ');
    write(`> ${request.method} ${request.url} (${headers})`);
    try {
      const response = await send(request);
      const quota = shown
        .map((name) => `${name}=${headerValue(response.headers, name) ?? '-'}`)
        .join(' ');
      const retryAfter = headerValue(response.headers, 'retry-after');
      write(
        `< ${response.status} in ${now() - started} ms; ${quota}` +
          (retryAfter === undefined ? '' : ` retry-after=${retryAfter}`),
      );
      return response;
    } catch (error) {
      write(
        `< failed after ${now() - started} ms: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw error;
    }
  };
}
