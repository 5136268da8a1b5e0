import { parseInt64 } from '../api/contract.js';
import type { IdInput } from '../commands/get.js';
import { UsageError } from '../errors.js';

const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/** Reads all of stdin as text, refusing more than a sane amount. */
export async function readAll(
  stdin: NodeJS.ReadableStream,
  maxBytes = MAX_STDIN_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > maxBytes) throw new UsageError(`stdin holds more than ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One id per line, streamed; blank lines are skipped, anything else that is not an int64 is reported. */
export async function* readIds(stdin: NodeJS.ReadableStream): AsyncIterable<IdInput> {
  // Loaded here: this module is part of every run's command definitions, readline is not.
  const { createInterface } = await import('node:readline');
  const lines = createInterface({ input: stdin, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    const id = parseInt64(text.trim());
    yield id === undefined ? { line, problem: 'not an int64 pet id' } : { line, id };
  }
}
