import { extname } from 'node:path';
import { bytesWithoutBom } from './bytes.js';

export type InputFormat = 'ndjson' | 'json' | 'csv';

export const INPUT_FORMATS: readonly InputFormat[] = ['ndjson', 'json', 'csv'];

const FORMAT_BY_EXTENSION: Readonly<Record<string, InputFormat>> = {
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
  '.csv': 'csv',
};

/**
 * --format (checked by commander) wins; else the extension: .ndjson/.jsonl → ndjson, .json →
 * json, .csv → csv. Undefined for stdin ('-') and any other name: the content tells
 * (formatFromContent).
 */
export function chooseFormat(
  path: string,
  given: InputFormat | undefined,
): InputFormat | undefined {
  return given ?? FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
}

// Blanks that may come before the first record: space, tab, CR, LF.
const BLANK = new Set([0x20, 0x09, 0x0d, 0x0a]);

/**
 * The format of an input by its first non-blank byte (after any BOM): `[` a JSON array, `{`
 * NDJSON, anything else CSV, whose first row is a header of names. Reads only as far as that
 * byte, and gives back the input whole, the bytes read included.
 */
export async function formatFromContent(
  input: AsyncIterable<Buffer | Uint8Array | string>,
): Promise<{ format: InputFormat; input: AsyncIterable<Buffer> }> {
  const iterator = bytesWithoutBom(input)[Symbol.asyncIterator]();
  const read: Buffer[] = [];
  let first: number | undefined;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    read.push(next.value);
    first = next.value.find((byte) => !BLANK.has(byte));
  }
  const format = first === 0x5b ? 'json' : first === 0x7b || first === undefined ? 'ndjson' : 'csv';
  async function* whole(): AsyncGenerator<Buffer> {
    yield* read;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield next.value;
    }
  }
  return { format, input: whole() };
}
