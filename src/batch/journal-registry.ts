import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFolder } from '../config/owned-files.js';
import { SharedStateError } from '../core/errors.js';
import { fileLock } from '../core/file-lock.js';
import { stateName } from '../ratelimit/state-store.js';

// The journals of each target, kept in the state folder, so that a run whose journal is new can
// find the journals that already hold its records: a renamed, copied or moved input, or the
// same records piped again, gets a journal of its own, and would send every record again.
//   <state folder>/journals/<the target's hash>: one entry a line, as JSON:
//   {"journal":"<real path>","head":["<record name>",…]}
// `head` names the run's first records: a run started at the same moment as another has
// journaled nothing yet, and is found by them. The list is read, checked against and written
// under its lock (core/file-lock.ts), so that of two runs started at once the second sees the
// first; it is written whole, to a new file renamed into place.

/** How many of a run's first records its entry names. */
export const HEAD_RECORDS = 1_000;

// A run holds the lock while it compares its input with the other journals: a large input
// takes a while, and the others wait for it, rather than start unchecked.
const LOCK_WAIT_MS = 15 * 60_000;

export interface RegistryEntry {
  /** The journal's real path. */
  journal: string;
  /** The names of its run's first records (HEAD_RECORDS at most), as the journal names them. */
  head: string[];
}

export interface JournalRegistry {
  /** The entries as they are now, read without the lock (a dry run, which writes nothing). */
  entries(): RegistryEntry[];
  /**
   * Runs `update` holding the list's lock, and writes the list it returns in its place: what a
   * run checks and adds is one step for all runs.
   */
  update(update: (entries: RegistryEntry[]) => Promise<RegistryEntry[]>): Promise<void>;
}

function parseEntry(line: string): RegistryEntry | undefined {
  try {
    const entry = JSON.parse(line) as Partial<RegistryEntry> | null;
    if (typeof entry?.journal !== 'string') return undefined;
    const head = Array.isArray(entry.head) ? entry.head.filter((n) => typeof n === 'string') : [];
    return { journal: entry.journal, head };
  } catch {
    return undefined; // the list is written whole: a line that is not JSON is not pets's
  }
}

export function journalRegistry(
  stateFolder: string,
  target: { origin: string; key: string },
): JournalRegistry {
  const folder = join(stateFolder, 'journals');
  const file = join(folder, stateName(target.origin, target.key));
  const read = (): RegistryEntry[] => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    const byJournal = new Map<string, RegistryEntry>();
    for (const line of text.split('\n')) {
      const entry = line ? parseEntry(line) : undefined;
      if (entry) byJournal.set(entry.journal, entry);
    }
    return [...byJournal.values()];
  };
  const write = (entries: RegistryEntry[]) => {
    const next = `${file}.${process.pid}.new`;
    try {
      writeFileSync(next, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''), {
        mode: 0o600,
      });
      renameSync(next, file);
    } catch (error) {
      rmSync(next, { force: true });
      throw new SharedStateError(stateFolder, error, 'journals');
    }
  };
  return {
    entries: read,
    async update(update) {
      let release: () => void;
      try {
        createFolder(folder);
        release = await fileLock(file).take(LOCK_WAIT_MS);
      } catch (error) {
        throw new SharedStateError(stateFolder, error, 'journals');
      }
      try {
        write(await update(read()));
      } finally {
        release();
      }
    },
  };
}
