import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { codeOf, FolderWriteError, UsageError } from '../core/errors.js';

// The config holds keys and the addresses they are sent to. A folder or file that another
// user owns, or can write, may have been planted: its base URL would take the key elsewhere,
// and its owner could read the key pets writes into it. Such a config is refused, not used.

// The state folder (the rate-limit state every pets process on a key trusts) gets the same
// checks: a planted `{"unlimited":true}` would send into a block and get the key banned.

/**
 * Refuses a folder pets keeps files in (`what`: "the config folder") that is a link, or is not
 * the current user's alone to change.
 */
export function checkOwnedFolder(dir: string, what: string): void {
  const stats = lstatSync(dir);
  if (stats.isSymbolicLink()) {
    throw refused(`${what} ${dir} is a symbolic link, which pets does not follow`, {
      hint: `Use the folder itself: set PETS_CONFIG_DIR to the folder the link points to, or replace the link with it.`,
    });
  }
  const uid = process.getuid?.();
  if (uid === undefined) return; // Windows: no POSIX owners or modes to check.
  checkOwned(stats, uid, `${what} ${dir}`, 700, dir);
}

/**
 * The config file's text, and whether users other than its owner may read it; undefined when
 * there is none. It is opened without following a symbolic link, and checked on the open file
 * itself, so nothing can be swapped in between.
 */
export function readOwnedFile(
  path: string,
): { text: string; readableByOthers: boolean } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') {
      throw refused(`the config file ${path} is a symbolic link, which pets does not follow`, {
        hint: `Replace the link with the file itself, or delete ${path} and run \`pets auth login\` again.`,
      });
    }
    throw refused(`the config file ${path} cannot be read (${code ?? 'unknown error'})`, {
      hint: `Check the permissions of ${path}.`,
    });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw refused(`the config file ${path} is not a regular file`, {
        hint: `Delete ${path}, then run \`pets profile set\` and \`pets auth login\` again.`,
      });
    }
    const uid = process.getuid?.();
    if (uid !== undefined) checkOwned(stats, uid, `the config file ${path}`, 600, path);
    return {
      text: readFileSync(fd, 'utf8'),
      readableByOthers: uid !== undefined && (stats.mode & 0o044) !== 0,
    };
  } finally {
    closeSync(fd);
  }
}

function checkOwned(stats: Stats, uid: number, what: string, mode: number, path: string): void {
  if (stats.uid !== uid) {
    throw refused(
      `${what} belongs to another user (uid ${stats.uid}), so it may have been planted`,
      {
        hint: `Check its content, then make it yours (\`chown -R ${uid} ${path}\`), or use a folder of your own with PETS_CONFIG_DIR.`,
      },
    );
  }
  if (stats.mode & 0o022) {
    throw refused(
      `${what} can be changed by other users (mode ${(stats.mode & 0o777).toString(8)})`,
      {
        hint: `Check its content, then run \`chmod ${mode} ${path}\`.`,
      },
    );
  }
}

function refused(message: string, details: { hint: string }): UsageError {
  return new UsageError(message, { ...details, code: 'config_unsafe' });
}

// Why a write failed, for the failures a folder itself causes; anything else is pets's own.
const WRITE_FAILURES: Record<string, string> = {
  EROFS: 'its file system is read-only (EROFS)',
  EACCES: 'this user may not write in it (EACCES)',
  EPERM: 'this user may not write in it (EPERM)',
  ENOSPC: 'the disk is full (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
};

/**
 * `error`, met writing in `folder` (`what`: "the config folder"), as a FolderWriteError when
 * the folder caused it (read-only, not writable, full), a UsageError when a file is where it
 * should be; else `error` itself.
 */
export function folderWriteError(error: unknown, folder: string, what: string): unknown {
  const code = codeOf(error);
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new UsageError(`${what} ${folder} cannot be made: a file is in its way (${code})`, {
      hint: 'Move the file, or set PETS_CONFIG_DIR to a folder of your own: every command keeps its rate-limit state there.',
    });
  }
  const reason = code === undefined ? undefined : WRITE_FAILURES[code];
  if (reason === undefined) return error;
  const hint =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'Free some space, then run the command again.'
      : 'Make it writable, or set PETS_CONFIG_DIR to a folder of your own.';
  return new FolderWriteError(what, folder, reason, hint, error);
}

/**
 * Makes `dir` (0700) and the folders above it that are missing, or throws the error that
 * stopped it, with its true code: Node's recursive mkdir says ENOENT where a read-only or
 * forbidden parent refused, so the first missing folder is then made alone to learn why.
 */
export function createFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    let missing = dir;
    while (!existsSync(dirname(missing)) && dirname(missing) !== missing)
      missing = dirname(missing);
    // Throws the true cause; made after all, the rest is made as before.
    mkdirSync(missing, { mode: 0o700 });
    if (missing === dir) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
}

/**
 * Refuses a state folder, and anything in it, that is a link or that is not the current
 * user's alone to change: the state there decides when pets may send. Nothing to check when
 * there is no folder yet: pets makes it, 0700.
 */
export function checkStateFolderAndFiles(dir: string): void {
  let folder: Stats;
  try {
    folder = lstatSync(dir);
  } catch {
    return; // None yet, or none to be had: the state store says why when it writes.
  }
  // Not a folder at all: nothing can be read from it, and writing says why.
  if (!folder.isDirectory() && !folder.isSymbolicLink()) return;
  checkOwnedFolder(dir, 'the state folder');
  const uid = process.getuid?.();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue; // Gone since the listing: another pets renamed its new state into place.
    }
    if (stats.isSymbolicLink()) {
      throw refused(`the state file ${path} is a symbolic link, which pets does not follow`, {
        hint: `Check it, then delete ${path}: pets makes the state again.`,
      });
    }
    if (uid !== undefined) checkOwned(stats, uid, `the state file ${path}`, 600, path);
  }
}
