import {
  closeSync,
  existsSync,
  fdatasync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { toInt64 } from '../api/contract.js';
import { JournalError, systemReason, UsageError, type ErrorJson } from '../core/errors.js';
import { describeHolder, fileLock, renewLeases, type Release } from '../core/file-lock.js';
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
  /** The key as pets shows it everywhere, **** and its last 4 characters, for messages. */
  keyHint: string;
}

export type { PreviousRecord };

export interface OutcomeEntry {
  outcome: 'created' | 'failed' | 'unknown';
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
const HEADER_START = '{"journal":';
const TORN_INTENT_START = '{"i":"';
// A file system runs out of room a block at a time: an entry that would cross a block's end
// starts on the next block, after blank padding, so that a full disk leaves padding torn, not
// an entry.
const BLOCK_BYTES = 4096;

function describeTarget(target: JournalTarget): string {
  return `profile "${target.profile}" at ${target.baseUrl} (key ${target.keyHint})`;
}

/**
 * Opens `path` for appending (or only for reading), refusing what is not a plain file the run
 * can use, and the input itself: opened this way, nothing in the file changes.
 */
function openFile(path: string, forWriting: boolean, input: string | undefined): number {
  let fd: number;
  try {
    fd = openSync(path, forWriting ? 'a+' : 'r', 0o600);
  } catch (error) {
    throw new UsageError(
      `the journal ${path} cannot be ${forWriting ? 'written' : 'read'}: ${systemReason(error)}`,
      {
        hint: 'Give a writable file with --journal <path>; nothing was sent.',
      },
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new UsageError(`the journal ${path} is not a regular file`, {
        hint: 'Give a file with --journal <path>; nothing was sent.',
      });
    }
    if (input !== undefined && sameFile(stat, input)) {
      throw new UsageError(`the journal ${path} is the input itself`, {
        hint: 'Give the journal a file of its own: --journal <new path>; nothing was sent.',
      });
    }
    if (forWriting) refuseHardLink(path, stat.nlink);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

function sameFile(opened: { dev: number; ino: number }, other: string): boolean {
  try {
    const stat = statSync(other);
    return stat.ino === opened.ino && stat.dev === opened.dev;
  } catch {
    return false;
  }
}

/** A file with two names would take a lock under each: one journal, one name. */
function refuseHardLink(path: string, links: number): void {
  if (links <= 1) return;
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
  if (!startsAs(line, TORN_INTENT_START)) return undefined;
  const rest = line.slice(TORN_INTENT_START.length);
  const quote = rest.indexOf('"');
  return quote === -1 ? { prefix: rest } : { name: rest.slice(0, quote) };
}

/**
 * Reads the journal at `fd` for `target`: each record's last word. A file that is not a pets
 * journal (no header of this format on its first line), or one of another target, is refused
 * with exit 2 before anything is written to it.
 */
function replay(fd: number, path: string, target: JournalTarget) {
  const records = new RecordIndex();
  const tornPrefixes: string[] = [];
  let header: Record<string, unknown> | undefined;
  const holdUnknown = (name: string) => {
    if (records.get(name) === undefined) records.set(name, { outcome: 'unknown' });
  };
  const read = (line: string) => {
    const trimmed = line.trim();
    if (!trimmed) return;
    let entry: unknown = scanEntry(trimmed);
    try {
      entry ??= parseJson(trimmed);
    } catch {
      const intent = tornIntent(trimmed);
      if (intent && 'name' in intent) holdUnknown(intent.name);
      else if (intent) tornPrefixes.push(intent.prefix);
      return;
    }
    if (typeof entry !== 'object' || entry === null) return;
    const { i, o } = entry as Record<string, unknown>;
    if (typeof i === 'string') holdUnknown(i);
    else if (typeof o === 'string') {
      const previous = revive(entry as Record<string, unknown>);
      if (previous) records.set(o, previous);
    }
  };
  let lines = 0;
  let startsAsHeader = false;
  const { size, torn } = forEachLine(fd, (bytes, start, end) => {
    const line = bytes.toString('utf8', start, end);
    if (lines > 0) read(line);
    else {
      header = parseHeader(line.trim());
      startsAsHeader = startsAs(line, HEADER_START);
    }
    // A long replay holds the event loop: the journal's lease is renewed as it goes.
    if (++lines % 65_536 === 0) renewLeases();
  });
  // An empty file, or a header a crash cut short: it says nothing of a record.
  const started = !(size === 0 || (size === torn && startsAsHeader));
  if (started) checkTarget(path, header, target);
  return { size, torn, started, records, tornPrefixes };
}

function parseHeader(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith(HEADER_START)) return undefined;
  try {
    const header = parseJson(line);
    return typeof header === 'object' && header !== null
      ? (header as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `text` is `start` cut short, or starts with all of it: what a tear may leave of it. */
function startsAs(text: string, start: string): boolean {
  return text.length < start.length ? start.startsWith(text) : text.startsWith(start);
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

/** What earlier runs left in a journal, as the engine and the plan ask it. */
function view(replayed: ReturnType<typeof replay>): Pick<Journal, 'records' | 'previous'> {
  const { records, tornPrefixes } = replayed;
  const heldByTear = (record: string): PreviousRecord | undefined =>
    tornPrefixes.some((prefix) => record.startsWith(prefix)) ? { outcome: 'unknown' } : undefined;
  return {
    records: records.size,
    previous: (record) =>
      records.get(record) ?? (tornPrefixes.length > 0 ? heldByTear(record) : undefined),
  };
}

/** Where the journal may be opened from, and what it must not be. */
export interface JournalPlace {
  /** The run's input file, which the journal must not be. */
  input?: string;
  io?: JournalIo;
}

/**
 * Reads the journal at `path` for a dry run: opened read-only, not locked, and left exactly as
 * it is. A journal that does not exist reads as empty. Refused (exit 2) as `openJournal`
 * refuses: what is not a pets journal, one of another target, the input itself.
 */
export function readJournal(
  path: string,
  target: JournalTarget,
  place: JournalPlace = {},
): Pick<Journal, 'records' | 'previous'> {
  if (!existsSync(path)) return { records: 0, previous: () => undefined };
  const fd = openFile(path, false, place.input);
  try {
    return view(replay(fd, path, target));
  } finally {
    closeSync(fd);
  }
}

// How much of a journal's start journalStanding reads.
const STANDING_BYTES = 64 * 1024;

/**
 * Whether the file at `path` still stands for records of `target`, read from its start only,
 * so that the registry of journals can ask it of many at each run: `records` when it is a
 * journal of the target with anything after its header; `none` when it holds nothing after
 * it (or its header is torn); `other` when it is gone, not a pets journal, or another target's.
 */
export function journalStanding(path: string, target: JournalTarget): 'records' | 'none' | 'other' {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return 'other';
  }
  try {
    const buffer = Buffer.alloc(STANDING_BYTES);
    const length = readSync(fd, buffer, 0, STANDING_BYTES, 0);
    const text = buffer.toString('utf8', 0, length);
    const newline = text.indexOf('\n');
    if (newline < 0) return length < STANDING_BYTES ? 'none' : 'other';
    try {
      checkTarget(path, parseHeader(text.slice(0, newline).trim()), target);
    } catch {
      return 'other';
    }
    if (text.slice(newline + 1).trim() !== '') return 'records';
    if (length < STANDING_BYTES) return 'none';
  } finally {
    closeSync(fd);
  }
  // All blank so far (a block's padding): the whole journal tells.
  try {
    return readJournal(path, target).records > 0 ? 'records' : 'none';
  } catch {
    return 'other';
  }
}

/**
 * Opens (or starts) the journal at `path` for `target`, holding its lock for this run. What is
 * not a pets journal, a journal of another target, one in use by a live process, one with two
 * names, and the input itself are refused (exit 2) with the file untouched. A journal that
 * cannot be written is exit 1, before anything is sent.
 */
export function openJournal(
  path: string,
  target: JournalTarget,
  place: JournalPlace = {},
): Journal {
  const fd = openFile(path, true, place.input);
  let release: Release = () => {};
  try {
    release = lockJournal(path, fd);
    const replayed = replay(fd, path, target);
    const writer = journalWriter(
      fd,
      path,
      replayed.started ? replayed.size : 0,
      place.io ?? FILE_IO,
    );
    if (!replayed.started) {
      if (replayed.size > 0) ftruncateSync(fd, 0);
      writer.write(`${JSON.stringify({ journal: HEADER_VERSION, ...target })}\n`);
    } else if (replayed.torn > 0) {
      // A torn line is kept, what it says counted; the next entry starts on its own line.
      writer.write('\n');
    }
    return {
      path,
      ...view(replayed),
      intend: (record, line) => writer.write(`${stringifyJson({ i: record, line })}\n`),
      durable: writer.durable,
      settle: (record, line, entry) =>
        writer.write(`${stringifyJson({ o: record, line, ...entry })}\n`),
      close() {
        closeSync(fd);
        release();
      },
    };
  } catch (error) {
    release();
    closeSync(fd);
    throw error;
  }
}

/**
 * Appends to the journal at `fd`, which holds `written` bytes: each entry whole or the run
 * stops, never across a block's end, and synced for all who wait by one fdatasync.
 */
function journalWriter(fd: number, path: string, written: number, io: JournalIo) {
  let failure: JournalError | undefined;
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
  const durable = async () => {
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
  };
  return { write, durable };
}

/**
 * Holds the journal's lock (core/file-lock.ts) for this run: one run at a time per journal
 * file, whatever name or link led to it, or two runs would send the same records.
 */
function lockJournal(path: string, fd: number): Release {
  const lock = fileLock(path);
  let taken: ReturnType<typeof lock.tryTake>;
  try {
    // A run in another PID namespace (a container) is watched until its lease is seen renewed
    // or lapses: at most a few seconds, and only then.
    taken = lock.takeUnlessLive();
  } catch (error) {
    throw new UsageError(
      `the journal's lock ${lock.lockPath} cannot be written: ${systemReason(error)}`,
      {
        hint: 'Give a journal in a folder you can write: --journal <path>; nothing was sent.',
      },
    );
  }
  if (typeof taken !== 'function') {
    const who = taken.holder === undefined ? '' : ` (${describeHolder(taken)})`;
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
    if (!sameFile(opened, lock.lockPath.slice(0, -'.lock'.length))) {
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

function checkTarget(
  path: string,
  header: Record<string, unknown> | undefined,
  target: JournalTarget,
): void {
  const fields = ['origin', 'key', 'profile', 'baseUrl', 'keyHint'] as const;
  if (!header || !fields.every((field) => typeof header[field] === 'string')) {
    throw new UsageError(`${path} is not a pets journal, so it was left as it is`, {
      hint: 'Give --journal a new path, or the journal of an earlier run of this input; nothing was sent.',
    });
  }
  if (header.journal !== HEADER_VERSION) {
    throw new UsageError(
      `the journal ${path} is in format ${String(header.journal)}; this pets reads format ${HEADER_VERSION}`,
      {
        hint: 'Resume it with the pets that wrote it, or start a fresh journal: --journal <new path>.',
      },
    );
  }
  const recorded = header as unknown as JournalTarget;
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
