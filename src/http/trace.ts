import { headerValue, type HttpSender } from './types.js';

/**
 * Wraps a sender so each attempt is written to `write` for --debug, with the values of the
 * `shown` response headers, and the proxy it goes through (`via`, never with credentials).
 * The key is never shown.
 */
export function tracingSender(
  send: HttpSender,
  write: (line: string) => void,
  now: () => number,
  shown: readonly string[],
  via: (url: string) => string | undefined = () => undefined,
): HttpSender {
  return async (request) => {
    const started = now();
    const headers = Object.entries(request.headers)
      .map(([name, value]) => `${name}: ${name === 'authorization' ? 'Bearer ***' : value}`)
      .join('; ');
    const proxy = via(request.url);
    write(`> ${request.method} ${request.url}${proxy ? ` via ${proxy}` : ''} (${headers})`);
    try {
      const response = await send(request);
      // The contract's rate headers always (- when absent), then any other dialect's sent.
      const others = Object.keys(response.headers).filter(
        (name) => /^(x-)?rate-?limit/.test(name) && !shown.includes(name),
      );
      const quota = [...shown, ...others]
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
