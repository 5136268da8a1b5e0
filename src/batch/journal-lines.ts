import { readSync } from 'node:fs';

const NEWLINE = 0x0a;
const FIRST_READ_BYTES = 1 << 16;

/**
 * Hands each line of the file open at `fd` to `onLine` as bytes (without its newline), in
 * order, the torn one after the last newline too; returns the file's size in bytes, and how
 * many come after its last newline (`torn`: a line a crash cut short, or 0). Lines are cut as bytes and handed over whole, so a character split across two
 * reads stays intact. One buffer serves every read, the unfinished line moved to its front:
 * a new buffer per read would leave the file's size in dead buffers until a full collection.
 */
export function forEachLine(
  fd: number,
  onLine: (bytes: Buffer, start: number, end: number) => void,
): { size: number; torn: number } {
  let buffer = Buffer.alloc(FIRST_READ_BYTES);
  let kept = 0;
  let position = 0;
  for (;;) {
    if (kept === buffer.length) {
      // A line longer than the buffer: make room for the rest of it.
      const larger = Buffer.alloc(buffer.length * 2);
      buffer.copy(larger, 0, 0, kept);
      buffer = larger;
    }
    const read = readSync(fd, buffer, kept, buffer.length - kept, position);
    if (read === 0) break;
    position += read;
    const end = kept + read;
    let start = 0;
    // The kept bytes hold no newline, so the search starts after them.
    for (let newline = buffer.indexOf(NEWLINE, kept); newline !== -1 && newline < end;) {
      onLine(buffer, start, newline);
      start = newline + 1;
      newline = buffer.indexOf(NEWLINE, start);
    }
    buffer.copy(buffer, 0, start, end);
    kept = end - start;
  }
  // The torn line is handed over as the others are: what it may say counts.
  if (kept > 0) onLine(buffer, 0, kept);
  return { size: position, torn: kept };
}
