import { hash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFolder } from '../config/owned-files.js';
import { SharedStateError } from '../core/errors.js';

// The journals of each target, kept in the state folder, so that a run whose journal is new can
// find the journals that already hold its records: a renamed, copied or moved input gets a
// journal of its own by default, and would send every record again.
//   <state folder>/journals/<the target's hash>: one journal's real path a line, as JSON.
// A line is appended whole (O_APPEND, far below a page), so that runs need no lock to add.

export interface JournalRegistry {
  /** The journals listed for the target that still exist, other than `journal`. */
  others(journal: string): string[];
  /** Lists `journal` (a real path) for the target, once. */
  add(journal: string): void;
}

export function journalRegistry(
  stateFolder: string,
  target: { origin: string; key: string },
): JournalRegistry {
  const folder = join(stateFolder, 'journals');
  const file = join(folder, hash('sha256', `${target.origin}\n${target.key}`, 'hex').slice(0, 16));
  const listed = (): string[] => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    const paths = new Set<string>();
    for (const line of text.split('\n')) {
      try {
        const path: unknown = JSON.parse(line);
        if (typeof path === 'string') paths.add(path);
      } catch {
        // a line torn by a crash: its journal is listed again by its next run
      }
    }
    return [...paths];
  };
  return {
    others: (journal) => listed().filter((path) => path !== journal && existsSync(path)),
    add(journal) {
      if (listed().includes(journal)) return;
      try {
        createFolder(folder);
        appendFileSync(file, `${JSON.stringify(journal)}\n`, { mode: 0o600 });
      } catch (error) {
        throw new SharedStateError(stateFolder, error, 'journals');
      }
    },
  };
}
