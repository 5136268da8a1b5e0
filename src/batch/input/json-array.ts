import { UsageError } from '../../core/errors.js';
import { JsonSyntaxError, parseJson, type JsonValue } from '../../json/int64-json.js';
import { recordFromJson } from './json-record.js';
import type { InputRecord, ReadNotes } from './record.js';
import { strictUtf8Decoder } from './utf8.js';

// A JSON array is parsed whole, so its size is what bounds memory.
const MAX_JSON_BYTES = 64 * 1024 * 1024;
const NDJSON_HINT = 'For bigger batches use NDJSON (one pet object per line) with --format ndjson.';

async function readWholeText(chunks: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) {
      throw new UsageError('the JSON input is larger than 64 MiB', { hint: NDJSON_HINT });
    }
    parts.push(chunk);
  }
  const text = strictUtf8Decoder()(Buffer.concat(parts, size));
  if (text === undefined) throw new UsageError('the JSON input is not valid UTF-8');
  return text;
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < position; at = text.indexOf('\n', at + 1)) {
    line++;
  }
  return line;
}

/** A JSON array of pets, read whole; each element is a record numbered by its position. */
export async function* readJsonArrayRecords(
  chunks: AsyncIterable<Buffer>,
  notes?: ReadNotes,
  ignoreUnknown?: boolean,
): AsyncGenerator<InputRecord> {
  const text = await readWholeText(chunks);
  let value: JsonValue;
  try {
    value = parseJson(text, { integersAsDigitsOnly: true });
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new UsageError(
      `the JSON input is not valid JSON (${error.message}, line ${lineAt(text, error.position)})`,
    );
  }
  if (!Array.isArray(value)) {
    throw new UsageError('the JSON input must be an array of pets', {
      hint: 'Write [{"name":"Rex","categoryId":1}, …], or use NDJSON for one pet per line.',
    });
  }
  if (value.length === 0)
    throw new UsageError('the JSON input is an empty array: it holds no pets');
  for (const [index, element] of value.entries()) {
    yield recordFromJson(index + 1, element, notes, ignoreUnknown);
  }
}
