import { readRecords, type InputFormat, type InputRecord } from '../../../src/batch/input/index.js';

/** Feeds the given chunks one by one, as a file stream would. */
export async function* fromChunks(
  chunks: Iterable<Buffer | string>,
): AsyncGenerator<Buffer | string> {
  for (const chunk of chunks) yield chunk;
}

/** The same bytes split into 1-byte chunks: every delimiter and character lands on a boundary. */
export function oneByteChunks(input: Buffer | string): Buffer[] {
  const bytes = Buffer.from(input);
  return Array.from(bytes, (_, index) => bytes.subarray(index, index + 1));
}

export async function readAll(
  input: Buffer | string | Iterable<Buffer | string>,
  format: InputFormat,
  ignoreUnknown?: boolean,
): Promise<InputRecord[]> {
  const chunks = typeof input === 'string' || Buffer.isBuffer(input) ? [input] : input;
  const records: InputRecord[] = [];
  for await (const record of readRecords(fromChunks(chunks), format, undefined, ignoreUnknown))
    records.push(record);
  return records;
}
