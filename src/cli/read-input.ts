import { parseInt64 } from '../api/contract.js';
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

/** One id per line; blank lines are skipped, anything else that is not an int64 is an error. */
export async function readIds(stdin: NodeJS.ReadableStream): Promise<bigint[]> {
  const ids: bigint[] = [];
  const lines = (await readAll(stdin)).split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const id = parseInt64(line.trim());
    if (id === undefined) {
      throw new UsageError(`stdin line ${index + 1} is not an int64 pet id`, {
        hint: 'Give one integer id per line.',
      });
    }
    ids.push(id);
  }
  if (ids.length === 0)
    throw new UsageError('stdin held no pet ids', { hint: 'Give one integer id per line.' });
  return ids;
}
