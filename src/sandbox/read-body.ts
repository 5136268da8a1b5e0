import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { kind: 'complete'; bytes: Buffer }
  | { kind: 'too_large' }
  /** The client went away, or sent so much that the connection was cut: nobody to answer. */
  | { kind: 'aborted' };

// An oversized body is still read to its end and thrown away, so the client is listening when
// the 413 arrives. Past this much the sandbox stops being polite and drops the connection.
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
      if (received > DISCARD_LIMIT_BYTES) {
        req.destroy();
        resolve({ kind: 'aborted' });
      }
    });
    req.on('end', () => {
      resolve(
        received <= maxBytes
          ? { kind: 'complete', bytes: Buffer.concat(chunks) }
          : { kind: 'too_large' },
      );
    });
    req.on('error', () => resolve({ kind: 'aborted' }));
    req.on('close', () => resolve({ kind: 'aborted' }));
  });
}
