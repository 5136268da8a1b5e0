import {
  closeSync,
  fdatasync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { toInt64 } from '../api/contract.js';
import { JournalError, UsageError, type ErrorJson } from '../core/errors.js';
import { fileLock, type Release } from '../core/file-lock.js';
import { parseJson, stringifyJson } from '../json/int64-json.js';
import { scanEntry } from './journal-entry.js';
import { forEachLine } from './journal-lines.js';
import { RecordIndex, type PreviousRecord } from './record-index.js';

// The journal of `pets add --file`: NDJSON, appended to, never rewritten.
//   {"journal":2,"origin":…,"key":…,"profile":…}   first: the target it belongs to
//   {"i":"<hash>.<n>","line":L}                    intent: written and synced before the create leaves
//   {"o":"<hash>.<n>","line":L,"outcome":…,…}      outcome: written when the answer is in
// A record is named by its content's hash and its occurrence among identical records, so
// lines inserted, removed or reordered in the input neither repeat nor block a record.
//
// Bytes that may have reached the file count as written. A write that fails or falls short
// ends every write and send of the run; a line it may have torn is never cut: a torn intent
// holds its record as unknown, and the resume first ends the torn line with a newline.

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
  /** Hands a create's intent to the OS, whole; throws (and ends all writing) if it cannot. */
  intend(record: string, line: number): void;
  /** Resolves once every intent so far is on disk (one fdatasync for all who wait). */
  durable(): Promise<void>;
  settle(record: string, line: number, entry: OutcomeEntry): void;
  close(): void;
}

/** The calls the journal writes through: the file system's, or a test's that fails. */
export interface JournalIo {
  write(fd: number, bytes: Buffer, offset: number, length: number): number;
  fdatasync(fd: number, done: (error: Error | null) => void): void;
}

const FILE_IO: JournalIo = {
  write: (fd, bytes, offset, length) => writeSync(fd, bytes, offset, length),
  fdatasync: (fd, done) => fdatasync(fd, done),
};

const HEADER_VERSION = 2;
const TORN_INTENT_START = '{"i":"';
// A file system runs out of room a block at a time: an entry that would cross a block's end
// starts on the next block, after blank padding, so that a full disk leaves padding torn, not
// an entry.
const BLOCK_BYTES = 4096;

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
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new UsageError(`the journal ${path} is not a regular file`, {
      hint: 'Give a file with --journal <path>; nothing was sent.',
    });
  }
  refuseHardLink(path, stat.nlink, fd);
  return fd;
}

/** A file with two names would take a lock under each: one journal, one name. */
function refuseHardLink(path: string, links: number, fd?: number): void {
  if (links <= 1) return;
  if (fd !== undefined) closeSync(fd);
  throw new UsageError(`the journal ${path} has ${links} names (hard links)`, {
    hint: 'Two runs through two names could send records twice: remove the other names, or give a fresh journal with --journal <path>; nothing was sent.',
  });
}

/**
 * What a line that is not JSON says of a record when it is a torn intent: the record's whole
 * name, if the tear came after it, or the part of it that was written (perhaps empty, when
 * the tear came before it: every record with no entry is then held). Undefined when the line
 * is not the start of an intent.
 */
function tornIntent(line: string): { name: string } | { prefix: string } | undefined {
  if (line.length < TORN_INTENT_START.length) {
    return TORN_INTENT_START.startsWith(line) ? { prefix: '' } : undefined;
  }
  if (!line.startsWith(TORN_INTENT_START)) return undefined;
  const rest = line.slice(TORN_INTENT_START.length);
  const quote = rest.indexOf('"');
  return quote === -1 ? { prefix: rest } : { name: rest.slice(0, quote) };
}

interface Replayed {
  /** Bytes in the file. */
  size: number;
  /** Bytes after the last newline: a line torn by a crash or a full disk, or 0. */
  torn: number;
}

/** Reads the journal's entries, keeping nothing of a line once it is read. */
function replay(
  fd: number,
  onHeader: (header: Record<string, unknown>) => void,
  onEntry: (entry: Record<string, unknown>) => void,
  onUnreadable: (line: string) => void,
): Replayed {
  let lineNumber = 0;
  const read = (line: string) => {
    lineNumber++;
    const trimmed = line.trim();
    if (!trimmed) return;
    let value: unknown = scanEntry(trimmed);
    if (value === undefined) {
      try {
        value = parseJson(trimmed);
      } catch {
        onUnreadable(trimmed);
        return;
      }
    }
    if (typeof value !== 'object' || value === null) return;
    const entry = value as Record<string, unknown>;
    if (lineNumber === 1 && 'journal' in entry) onHeader(entry);
    else onEntry(entry);
  };
  const { size, torn } = forEachLine(fd, (bytes, start, end) =>
    read(bytes.toString('utf8', start, end)),
  );
  // The torn line is read as the others are: what it may say counts. With no line before it,
  // it is the header's start, and says nothing of a record.
  if (torn > 0 && size > torn) {
    const tail = Buffer.alloc(torn);
    readSync(fd, tail, 0, torn, size - torn);
    read(tail.toString('utf8'));
  }
  return { size, torn };
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
 * journal of another target, one in use by a live process, or one with two names is refused
 * (exit 2). A journal that cannot be written is exit 1, before anything is sent.
 */
export function openJournal(path: string, target: JournalTarget, io: JournalIo = FILE_IO): Journal {
  const fd = openForAppend(path);
  let release: Release;
  try {
    release = lockJournal(path, fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  let failure: JournalError | undefined;
  let written = 0;
  /** Writes all of `text`, or ends every later write and send. */
  const write = (text: string) => {
    if (failure) throw failure;
    let bytes = Buffer.from(text);
    const room = BLOCK_BYTES - (written % BLOCK_BYTES);
    if (bytes.length > room && bytes.length < BLOCK_BYTES) {
      bytes = Buffer.concat([Buffer.from(`${' '.repeat(room - 1)}\n`), bytes]);
    }
    try {
      for (let done = 0; done < bytes.length;) {
        const wrote = io.write(fd, bytes, done, bytes.length - done);
        // A short write is taken up where it stopped; one that writes nothing is a full disk.
        if (wrote <= 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
        done += wrote;
        written += wrote;
      }
    } catch (error) {
      failure = new JournalError(path, error);
      throw failure;
    }
  };

  const tornPrefixes: string[] = [];
  let records: RecordIndex;
  try {
    records = new RecordIndex();
    let header: Record<string, unknown> | undefined;
    let entries = 0;
    const holdUnknown = (name: string) => {
      if (!records.has(name)) records.set(name, { outcome: 'unknown' });
    };
    const { size, torn } = replay(
      fd,
      (found) => (header = found),
      (entry) => {
        entries++;
        if (typeof entry.i === 'string') holdUnknown(entry.i);
        else if (typeof entry.o === 'string') {
          const previous = revive(entry);
          if (previous) records.set(entry.o, previous);
        }
      },
      (line) => {
        const intent = tornIntent(line);
        if (!intent) return;
        entries++;
        if ('name' in intent) holdUnknown(intent.name);
        else tornPrefixes.push(intent.prefix);
      },
    );
    written = size;
    if (header) checkTarget(path, header, target);
    else if (entries > 0) {
      throw new UsageError(`the journal ${path} was written by an older pets, without a target`, {
        hint: 'Check with `pets list` what it created, then start a fresh journal: --journal <new path>.',
      });
    } else if (size === torn) {
      // Empty, or a header torn before its end: nothing that names a record.
      if (size > 0) ftruncateSync(fd, 0);
      written = 0;
      write(`${JSON.stringify({ journal: HEADER_VERSION, ...target })}\n`);
    }
    // A torn line is kept, what it says counted above; the next entry starts on its own line.
    if (header && torn > 0) write('\n');
  } catch (error) {
    release();
    closeSync(fd);
    throw error;
  }

  const index = records;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const startSync = (): Promise<void> => {
    const sync = new Promise<void>((resolve, reject) =>
      io.fdatasync(fd, (error) => {
        // Failing to sync is failing to write; and once a write has failed, nothing is sent.
        if (error) failure ??= new JournalError(path, error);
        if (failure) reject(failure);
        else resolve();
      }),
    ).finally(() => {
      if (running === sync) running = undefined;
    });
    running = sync;
    return sync;
  };
  const heldByTear = (record: string): PreviousRecord | undefined =>
    tornPrefixes.some((prefix) => record.startsWith(prefix)) ? { outcome: 'unknown' } : undefined;

  return {
    path,
    records: index.size,
    previous: (record) =>
      index.get(record) ?? (tornPrefixes.length > 0 ? heldByTear(record) : undefined),
    intend(record, line) {
      write(`${stringifyJson({ i: record, line })}\n`);
    },
    async durable() {
      if (failure) throw failure;
      if (!running) await startSync();
      else {
        // A sync under way may have begun before this caller's intent was written: the next
        // one covers it, and everyone who asks meanwhile shares it.
        queued ??= running
          .catch(() => undefined)
          .then(() => {
            queued = undefined;
            return startSync();
          });
        await queued;
      }
      // A write that failed while this caller waited stops its send too.
      if (failure) throw failure;
    },
    settle(record, line, entry) {
      write(`${stringifyJson({ o: record, line, ...entry })}\n`);
    },
    close() {
      closeSync(fd);
      release();
    },
  };
}

/**
 * Holds the journal's lock (core/file-lock.ts) for this run: one run at a time per journal
 * file, whatever name or link led to it, or two runs would send the same records.
 */
function lockJournal(path: string, fd: number): Release {
  const lock = fileLock(path);
  let taken: ReturnType<typeof lock.tryTake>;
  try {
    taken = lock.tryTake();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`the journal's lock ${lock.lockPath} cannot be written (${code})`, {
      hint: 'Give a journal in a folder you can write: --journal <path>; nothing was sent.',
    });
  }
  if (typeof taken !== 'function') {
    const who = taken.holder === undefined ? '' : ` (process ${taken.holder})`;
    throw new UsageError(`the journal ${path} is in use by another pets${who}`, {
      hint:
        taken.holder === undefined
          ? `If no pets runs on it, remove ${lock.lockPath}.`
          : 'Wait for that run to end; two runs on one journal would send records twice.',
    });
  }
  // The name may have been moved to another file, or given a second name, meanwhile.
  try {
    const opened = fstatSync(fd);
    const named = statSync(lock.lockPath.slice(0, -'.lock'.length));
    if (opened.ino !== named.ino || opened.dev !== named.dev) {
      throw new UsageError(`the journal ${path} was replaced while it was being opened`, {
        hint: 'Run the command again; nothing was sent.',
      });
    }
    refuseHardLink(path, opened.nlink);
  } catch (error) {
    taken();
    throw error;
  }
  return taken;
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
