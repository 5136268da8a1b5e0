import { JsonSyntaxError, parseJson, type JsonValue } from '../../json/int64-json.js';
import { recordFromJson } from './json-record.js';
import { LineSplitter, type Line } from './lines.js';
import type { InputRecord, ReadNotes } from './record.js';

/** Returns the line's record, or undefined for a blank line. */
function recordFromLine(
  line: Line,
  notes?: ReadNotes,
  ignoreUnknown?: boolean,
): InputRecord | undefined {
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
  if (Array.isArray(value)) {
    return {
      line: line.number,
      problem: 'not a JSON object but an array (a JSON array of pets is --format json)',
    };
  }
  return recordFromJson(line.number, value, notes, ignoreUnknown);
}

/** One JSON object per line; a bad line becomes a problem record and reading goes on. */
export async function* readNdjsonRecords(
  chunks: AsyncIterable<Buffer>,
  notes?: ReadNotes,
  ignoreUnknown?: boolean,
): AsyncGenerator<InputRecord> {
  const splitter = new LineSplitter();
  for await (const chunk of chunks) {
    for (const line of splitter.push(chunk)) {
      const record = recordFromLine(line, notes, ignoreUnknown);
      if (record !== undefined) yield record;
    }
  }
  for (const line of splitter.end()) {
    const record = recordFromLine(line, notes, ignoreUnknown);
    if (record !== undefined) yield record;
  }
}
