import {
  closeSync,
  fdatasync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { toInt64 } from '../api/contract.js';
import { JournalError, UsageError, type ErrorJson } from '../core/errors.js';
import { processAlive } from '../core/process-alive.js';
import { parseJson, stringifyJson } from '../json/int64-json.js';
import { scanEntry } from './journal-entry.js';
import { countLinesStarting, forEachLine } from './journal-lines.js';
import { RecordIndex, type PreviousRecord } from './record-index.js';

// The journal of `pets add --file`: NDJSON, appended to, never rewritten.
//   {"journal":2,"origin":…,"key":…,"profile":…}   first: the target it belongs to
//   {"i":"<hash>.<n>","line":L}                    intent: written before the create leaves
//   {"o":"<hash>.<n>","line":L,"outcome":…,…}      outcome: written when the answer is in
// A record is named by its content's hash and its occurrence among identical records, so
// lines inserted, removed or reordered in the input neither repeat nor block a record.

export type JournalOutcome = 'created' | 'failed' | 'unknown';

/**
 * Who the journal's creates went to: the API origin, the key's fingerprint, the profile. The
 * origin and key bind the journal; the profile and its base URL, as the user gave them, are
 * what messages name.
 */
export interface JournalTarget {
  origin: string;
  key: string;
  profile: string;
  baseUrl: string;
}

export type { PreviousRecord };

export interface OutcomeEntry {
  outcome: JournalOutcome;
  id?: bigint;
  retryable?: boolean;
  error?: ErrorJson;
}

export interface Journal {
  readonly path: string;
  /** How many records earlier runs left a word on. */
  readonly records: number;
  previous(record: string): PreviousRecord | undefined;
  /** Records that a create is about to leave, and hands it to the OS; throws if it cannot. */
  intend(record: string, line: number): void;
  /** Resolves once every intent so far is on disk (one fdatasync for all who wait). */
  durable(): Promise<void>;
  settle(record: string, line: number, entry: OutcomeEntry): void;
  close(): void;
}

const HEADER_VERSION = 2;
// How an intent's line begins. Each record's first entry is an intent, so counting them bounds
// the records: the index is then allocated once, rather than grown by doubling, which leaves
// as much again in dead arrays until a full collection.
const INTENT_START = '{"i":';

function describeTarget(target: JournalTarget): string {
  return `profile "${target.profile}" at ${target.baseUrl} (key ${target.key.slice(0, 8)}…)`;
}

/** Opens `path` for appending, refusing what is not a plain file the run can write. */
function openForAppend(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'a+', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`the journal ${path} cannot be written (${code})`, {
      hint: 'Give a writable file with --journal <path>; nothing was sent.',
    });
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new UsageError(`the journal ${path} is not a regular file`, {
      hint: 'Give a file with --journal <path>; nothing was sent.',
    });
  }
  return fd;
}

/**
 * Reads the journal's entries, keeping nothing of a line once it is read, and cuts off a
 * torn last line (a crash mid-write) so that the next entry starts on its own line.
 */
function replay(
  fd: number,
  onHeader: (header: Record<string, unknown>) => void,
  onEntry: (entry: Record<string, unknown>) => void,
): void {
  let lineNumber = 0;
  const { size, torn } = forEachLine(fd, (bytes, start, end) => {
    lineNumber++;
    const line = bytes.toString('utf8', start, end);
    if (!line.trim()) return;
    let value: unknown = scanEntry(line);
    if (value === undefined) {
      try {
        value = parseJson(line);
      } catch {
        return;
      }
    }
    if (typeof value !== 'object' || value === null) return;
    const entry = value as Record<string, unknown>;
    if (lineNumber === 1 && 'journal' in entry) onHeader(entry);
    else onEntry(entry);
  });
  if (torn > 0) ftruncateSync(fd, size - torn);
}

function revive(entry: Record<string, unknown>): PreviousRecord | undefined {
  switch (entry.outcome) {
    case 'created':
      return { outcome: 'created', id: toInt64(entry.id) ?? 0n };
    case 'unknown':
      return { outcome: 'unknown' };
    case 'failed':
      return {
        outcome: 'failed',
        retryable: entry.retryable === true,
        ...(typeof entry.error === 'object' && entry.error !== null
          ? { error: entry.error as ErrorJson }
          : {}),
      };
    default:
      return undefined;
  }
}

/**
 * Opens (or starts) the journal at `path` for `target`, holding its lock for this run. A
 * journal of another target, or one in use by a live process, is refused (exit 2).
 */
export function openJournal(path: string, target: JournalTarget): Journal {
  const release = lockJournal(path);
  let fd: number;
  let records: RecordIndex;
  try {
    fd = openForAppend(path);
    records = new RecordIndex(countLinesStarting(fd, INTENT_START));
    let header: Record<string, unknown> | undefined;
    let entries = 0;
    replay(
      fd,
      (found) => (header = found),
      (entry) => {
        entries++;
        if (typeof entry.i === 'string') {
          if (!records.has(entry.i)) records.set(entry.i, { outcome: 'unknown' });
        } else if (typeof entry.o === 'string') {
          const previous = revive(entry);
          if (previous) records.set(entry.o, previous);
        }
      },
    );
    if (header) checkTarget(path, header, target);
    else if (entries > 0) {
      throw new UsageError(`the journal ${path} was written by an older pets, without a target`, {
        hint: 'Check with `pets list` what it created, then start a fresh journal: --journal <new path>.',
      });
    } else {
      try {
        writeSync(fd, `${JSON.stringify({ journal: HEADER_VERSION, ...target })}\n`);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new UsageError(`the journal ${path} cannot be written (${code})`, {
          hint: 'Free some space or give another file with --journal <path>; nothing was sent.',
        });
      }
    }
  } catch (error) {
    release();
    throw error;
  }

  const fileFd = fd;
  const index = records;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const write = (text: string) => {
    try {
      writeSync(fileFd, text);
    } catch (error) {
      throw new JournalError(path, error);
    }
  };
  const startSync = (): Promise<void> => {
    const sync = new Promise<void>((resolve, reject) =>
      fdatasync(fileFd, (error) => (error ? reject(new JournalError(path, error)) : resolve())),
    ).finally(() => {
      if (running === sync) running = undefined;
    });
    running = sync;
    return sync;
  };

  return {
    path,
    records: index.size,
    previous: (record) => index.get(record),
    intend(record, line) {
      write(`${stringifyJson({ i: record, line })}\n`);
    },
    durable() {
      if (!running) return startSync();
      // A sync under way may have begun before this caller's intent was written: the next
      // one covers it, and everyone who asks meanwhile shares it.
      queued ??= running
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return startSync();
        });
      return queued;
    },
    settle(record, line, entry) {
      write(`${stringifyJson({ o: record, line, ...entry })}\n`);
    },
    close() {
      closeSync(fileFd);
      release();
    },
  };
}

function checkTarget(path: string, header: Record<string, unknown>, target: JournalTarget): void {
  const recorded: JournalTarget = {
    origin: String(header.origin),
    key: String(header.key),
    profile: String(header.profile),
    // A journal from before the base URL was recorded names its server by origin.
    baseUrl: typeof header.baseUrl === 'string' ? header.baseUrl : String(header.origin),
  };
  if (recorded.origin === target.origin && recorded.key === target.key) return;
  throw new UsageError(
    `the journal ${path} belongs to ${describeTarget(recorded)}, not to ${describeTarget(target)}`,
    {
      hint:
        `Resume it against its own target (pets --profile ${recorded.profile} add --file …), ` +
        'or start a fresh journal for this one: --journal <new path>.',
    },
  );
}

/**
 * Holds `<journal>.lock` for this run: one run at a time per journal, or two would send the
 * same records. A lock whose process has died is taken over.
 */
function lockJournal(path: string): () => void {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockPath, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new UsageError(`the journal's lock ${lockPath} cannot be written (${code})`, {
          hint: 'Give a journal in a folder you can write: --journal <path>; nothing was sent.',
        });
      }
    }
    const holder = Number(readLock(lockPath));
    if (processAlive(holder)) {
      throw new UsageError(`the journal ${path} is in use by another pets (process ${holder})`, {
        hint: 'Wait for that run to end; two runs on one journal would send records twice.',
      });
    }
    try {
      unlinkSync(lockPath);
    } catch {
      // another run took it over first; try again
    }
  }
  throw new UsageError(`the journal ${path} is in use by another pets`, {
    hint: 'Wait for that run to end, then try again.',
  });
}

function readLock(lockPath: string): string {
  try {
    return readFileSync(lockPath, 'utf8').trim();
  } catch {
    return '';
  }
}
