import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  statSync,
  type Stats,
} from 'node:fs';
import { UsageError } from '../core/errors.js';

// The config holds keys and the addresses they are sent to. A folder or file that another
// user owns, or can write, may have been planted: its base URL would take the key elsewhere,
// and its owner could read the key pets writes into it. Such a config is refused, not used.

/** Refuses a config folder that is not the current user's alone to change. */
export function checkConfigFolder(dir: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return; // Windows: no POSIX owners or modes to check.
  checkOwned(statSync(dir), uid, `the config folder ${dir}`, 700, dir);
}

/**
 * The config file's text, or undefined when there is none. It is opened without following a
 * symbolic link, and checked on the open file itself, so nothing can be swapped in between.
 */
export function readOwnedFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
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
    return readFileSync(fd, 'utf8');
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
