import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { parseJson, stringifyJson } from '../json/int64-json.js';
import { toInt64 } from '../api/contract.js';

export type JournalOutcome = 'created' | 'failed' | 'unknown';

/** One result, as written: enough to skip, retry or refuse the record on a later run. */
export interface JournalEntry {
  line: number;
  /** Fingerprint of the record's content, to notice an input that changed between runs. */
  hash: string;
  outcome: JournalOutcome;
  /** The id the server gave, for created records. */
  id?: bigint;
  /** For failed records: whether trying again could succeed (a 400 would not). */
  retryable?: boolean;
  error?: { code: string; message: string; status: number | null };
}

export interface Journal {
  readonly path: string;
  /** The last outcome recorded for `line` by earlier runs. */
  previous(line: number): JournalEntry | undefined;
  /** Appends one result and hands it to the OS at once, so a killed run loses nothing. */
  append(entry: JournalEntry): void;
  close(): void;
}

/** What earlier runs recorded, last word per line; a torn last line (a crash mid-write) is ignored. */
function readEntries(path: string): Map<number, JournalEntry> {
  const entries = new Map<number, JournalEntry>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return entries;
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = parseJson(line);
    } catch {
      continue;
    }
    const entry = value as Partial<JournalEntry> & { id?: unknown };
    if (typeof entry.line !== 'number' || typeof entry.hash !== 'string') continue;
    if (entry.outcome !== 'created' && entry.outcome !== 'failed' && entry.outcome !== 'unknown')
      continue;
    entries.set(entry.line, {
      line: entry.line,
      hash: entry.hash,
      outcome: entry.outcome,
      ...(entry.outcome === 'created' ? { id: toInt64(entry.id) ?? 0n } : {}),
      ...(entry.retryable === undefined ? {} : { retryable: entry.retryable }),
      // Only failures keep their error: a repeated failure is reported with it.
      ...(entry.outcome === 'failed' && entry.error ? { error: entry.error } : {}),
    });
  }
  return entries;
}

export function openJournal(path: string): Journal {
  const entries = readEntries(path);
  const fd = openSync(path, 'a', 0o600);
  return {
    path,
    previous: (line) => entries.get(line),
    append(entry) {
      writeSync(fd, `${stringifyJson(entry)}\n`);
    },
    close: () => closeSync(fd),
  };
}
