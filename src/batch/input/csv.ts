import { UsageError } from '../../core/errors.js';
import { CsvRowParser, type CsvRow } from './csv-rows.js';
import { refuseUnknownFields, toNewPet } from './new-pet.js';
import type { InputRecord, ReadNotes } from './record.js';

/** Where each known column sits in a row; other columns are refused, or ignored when asked. */
interface Columns {
  count: number;
  name: number;
  categoryId: number;
  status: number | undefined;
  /** An id column: set aside, as the server assigns ids. */
  id: number | undefined;
}

const KNOWN_COLUMNS = ['name', 'categoryId', 'status', 'id'] as const;
type KnownColumn = (typeof KNOWN_COLUMNS)[number];
const REQUIRED_COLUMNS = ['name', 'categoryId'] as const;
const HEADER_HINT = 'The first row must name the columns, e.g. name,categoryId,status';

function columnsFromHeader(header: CsvRow, ignoreUnknown?: boolean): Columns {
  if ('problem' in header) {
    throw new UsageError(`the CSV header row cannot be read: ${header.problem}`, {
      hint: HEADER_HINT,
    });
  }
  const found = new Map<KnownColumn, number>();
  const unknown: string[] = [];
  header.fields.forEach((title, index) => {
    const wanted = title.trim().toLowerCase();
    const column = KNOWN_COLUMNS.find((known) => known.toLowerCase() === wanted);
    if (column === undefined) {
      if (wanted !== '') unknown.push(title.trim());
      return;
    }
    if (found.has(column)) {
      throw new UsageError(`the CSV header names the column ${column} more than once`);
    }
    found.set(column, index);
  });
  const missing = REQUIRED_COLUMNS.filter((column) => !found.has(column));
  const name = found.get('name');
  const categoryId = found.get('categoryId');
  if (name === undefined || categoryId === undefined) {
    throw new UsageError(
      `the CSV header must have the columns name and categoryId; missing: ${missing.join(', ')}`,
      { hint: HEADER_HINT },
    );
  }
  if (!ignoreUnknown) refuseUnknownFields(unknown, 'the CSV header');
  return {
    count: header.fields.length,
    name,
    categoryId,
    status: found.get('status'),
    id: found.get('id'),
  };
}

function recordFromRow(row: CsvRow, columns: Columns, notes?: ReadNotes): InputRecord {
  if ('problem' in row) return { line: row.line, problem: row.problem };
  const { fields } = row;
  if (fields.length !== columns.count) {
    return {
      line: row.line,
      problem: `the row has ${fields.length} field${fields.length === 1 ? '' : 's'} but the header has ${columns.count}`,
    };
  }
  const values: Record<string, unknown> = {
    name: fields[columns.name],
    categoryId: fields[columns.categoryId],
  };
  if (columns.status !== undefined) values.status = fields[columns.status];
  if (notes && columns.id !== undefined && fields[columns.id]?.trim()) notes.ids++;
  const pet = toNewPet(values, 'csv');
  return typeof pet === 'string' ? { line: row.line, problem: pet } : { line: row.line, pet };
}

/** CSV with a header row naming name, categoryId and optionally status, in any order. */
export async function* readCsvRecords(
  chunks: AsyncIterable<Buffer>,
  notes?: ReadNotes,
  ignoreUnknown?: boolean,
): AsyncGenerator<InputRecord> {
  const parser = new CsvRowParser();
  let columns: Columns | undefined;
  let records = 0;
  const take = (row: CsvRow): InputRecord | undefined => {
    if (columns !== undefined) return (records++, recordFromRow(row, columns, notes));
    columns = columnsFromHeader(row, ignoreUnknown);
    return undefined;
  };
  for await (const chunk of chunks) {
    for (const row of parser.push(chunk)) {
      const record = take(row);
      if (record !== undefined) yield record;
    }
  }
  for (const row of parser.end()) {
    const record = take(row);
    if (record !== undefined) yield record;
  }
  if (columns === undefined) {
    throw new UsageError('the CSV input is empty; it needs a header row', { hint: HEADER_HINT });
  }
  if (records === 0) {
    throw new UsageError('the CSV input has a header row but no records', {
      hint: 'Each line after the header is a pet; lines may end in LF, CRLF or CR.',
    });
  }
}
