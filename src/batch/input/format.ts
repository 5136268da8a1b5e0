import { extname } from 'node:path';
import { UsageError } from '../../core/errors.js';

export type InputFormat = 'ndjson' | 'json' | 'csv';

export const INPUT_FORMATS: readonly InputFormat[] = ['ndjson', 'json', 'csv'];
const FORMATS = INPUT_FORMATS;

const FORMAT_BY_EXTENSION: Readonly<Record<string, InputFormat>> = {
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
  '.csv': 'csv',
};

const STDIN = '-';

function isInputFormat(value: string): value is InputFormat {
  return (FORMATS as readonly string[]).includes(value);
}

/** --format wins; else by extension: .ndjson/.jsonl → ndjson, .json → json, .csv → csv. For stdin ('-') with no --format: ndjson. Anything else → UsageError naming the allowed formats. */
export function chooseFormat(path: string, explicit: string | undefined): InputFormat {
  if (explicit !== undefined) {
    const format = explicit.trim().toLowerCase();
    if (isInputFormat(format)) return format;
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  }
  if (path === STDIN) return 'ndjson';
  const format = FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
  if (format !== undefined) return format;
  throw new UsageError(
    `cannot tell the format of ${path} from its name; pass --format ${FORMATS.join('|')}`,
    { hint: 'Files ending in .ndjson, .jsonl, .json or .csv are recognised.' },
  );
}
