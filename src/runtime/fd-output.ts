import { fstatSync, statSync, writeSync } from 'node:fs';
import type { Output } from '../terminal/io.js';

/**
 * Writes text to a file descriptor with plain write(2) calls. process.stdout and
 * process.stderr load Node's streams to do what these calls do: Node writes
 * synchronously to files, terminals and (on Linux) pipes as well. `onClosed` runs when the
 * reader has gone: EPIPE (`pets list | head`), or ECONNRESET from a socket closed with
 * output unread (a Node program's pipe to its child is a socket).
 */
export function fdOutput(fd: number, onClosed: () => void): Output {
  return {
    write(text: string): boolean {
      const bytes = Buffer.from(text);
      let offset = 0;
      while (offset < bytes.length) {
        try {
          offset += writeSync(fd, bytes, offset);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EPIPE' || code === 'ECONNRESET') {
            onClosed();
            return false;
          }
          // Another process made the pipe non-blocking and it is full: let the reader catch up.
          if (code !== 'EAGAIN') throw error;
          Atomics.wait(PAUSE, 0, 0, 1);
        }
      }
      return true;
    },
  };
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Whether `fd` is a terminal. node:tty would tell, but loading it brings net and the streams;
 * fstat tells pipes, files and /dev/null (where scripts send output) apart for
 * nothing, so only a character device that may be a terminal asks node:tty.
 */
export async function isTerminal(fd: number): Promise<boolean> {
  try {
    const stats = fstatSync(fd);
    if (!stats.isCharacterDevice()) return false;
    if (stats.rdev === statSync('/dev/null', { throwIfNoEntry: false })?.rdev) return false;
  } catch {
    return false;
  }
  return (await import('node:tty')).isatty(fd);
}
