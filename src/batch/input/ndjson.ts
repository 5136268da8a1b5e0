import { JsonSyntaxError, parseJson, type JsonValue } from '../../json/int64-json.js';
import { recordFromJson } from './json-record.js';
import { LineSplitter, type Line } from './lines.js';
import type { InputRecord } from './record.js';

/** Returns the line's record, or undefined for a blank line. */
function recordFromLine(line: Line): InputRecord | undefined {
  if ('problem' in line) return { line: line.number, problem: line.problem };
  if (line.text.trim() === '') return undefined;
  let value: JsonValue;
  try {
    value = parseJson(line.text, { integersAsDigitsOnly: true });
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    // parseJson's messages give a position, never the input itself.
    return { line: line.number, problem: `not valid JSON (${error.message})` };
  }
  return recordFromJson(line.number, value);
}

/** One JSON object per line; a bad line becomes a problem record and reading goes on. */
export async function* readNdjsonRecords(
  chunks: AsyncIterable<Buffer>,
): AsyncGenerator<InputRecord> {
  const splitter = new LineSplitter();
  for await (const chunk of chunks) {
    for (const line of splitter.push(chunk)) {
      const record = recordFromLine(line);
      if (record !== undefined) yield record;
    }
  }
  for (const line of splitter.end()) {
    const record = recordFromLine(line);
    if (record !== undefined) yield record;
  }
}
