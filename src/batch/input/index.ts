// Readers of the records for `pets add --file`. Each yields one record at a time, so a
// batch can be sent while the file is still being read.

import { bytesWithoutBom } from './bytes.js';
import { readCsvRecords } from './csv.js';
import type { InputFormat } from './format.js';
import { readJsonArrayRecords } from './json-array.js';
import { readNdjsonRecords } from './ndjson.js';
import type { InputRecord, ReadNotes } from './record.js';

export { chooseFormat, formatFromContent, type InputFormat } from './format.js';
export type { InputRecord, ReadNotes } from './record.js';
export { toNewPet } from './new-pet.js';

/** Reads records one at a time. NDJSON and CSV are streamed with constant memory (a million lines must not grow memory); JSON reads the whole text (max 64 MiB, else UsageError) and must be an array. */
export function readRecords(
  input: AsyncIterable<Buffer | string>,
  format: InputFormat,
  notes?: ReadNotes,
  ignoreUnknown?: boolean,
): AsyncIterable<InputRecord> {
  const chunks = bytesWithoutBom(input);
  switch (format) {
    case 'ndjson':
      return readNdjsonRecords(chunks, notes, ignoreUnknown);
    case 'json':
      return readJsonArrayRecords(chunks, notes, ignoreUnknown);
    case 'csv':
      return readCsvRecords(chunks, notes, ignoreUnknown);
  }
}
