import { InterruptedError, UsageError } from '../core/errors.js';

const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/**
 * Reads all of stdin as text, refusing more than a sane amount. `signal` (Ctrl-C) ends the
 * read at once: on a terminal nothing else would, until Ctrl-D.
 */
export function readStdin(
  stdin: NodeJS.ReadableStream,
  maxBytes = MAX_STDIN_BYTES,
  signal?: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error?: Error) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', stop);
      signal?.removeEventListener('abort', onAbort);
      if (!error) return resolve(Buffer.concat(chunks).toString('utf8'));
      stdin.pause();
      reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > maxBytes) return stop(new UsageError(`stdin holds more than ${maxBytes} bytes`));
      chunks.push(buffer);
    };
    const onEnd = () => stop();
    const onAbort = () => stop(new InterruptedError());
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', stop);
  });
}
