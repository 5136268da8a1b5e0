import { BoundedBytes, MAX_RECORD_BYTES } from './bounded-bytes.js';
import { NOT_UTF8, strictUtf8Decoder } from './utf8.js';

/** A physical line without its `\n` (a `\r` before it is kept), or why it cannot be read. */
export type Line = { number: number; text: string } | { number: number; problem: string };

const LF = 0x0a;
export const LINE_TOO_LONG = 'line longer than 1 MiB';

/**
 * Splits bytes into lines, chunk by chunk, with memory bounded by the longest allowed line:
 * the rest of a longer line is dropped as it arrives and the line is reported as a problem.
 * Synchronous per chunk, because an await per line would cost more than the splitting.
 */
export class LineSplitter {
  private readonly decode = strictUtf8Decoder();
  private readonly partial = new BoundedBytes(MAX_RECORD_BYTES);
  private partialTooLong = false;
  private number = 1;

  *push(chunk: Uint8Array): Generator<Line> {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.partialTooLong && !this.partial.append(chunk, start, end)) {
        this.partialTooLong = true;
      }
      if (newline === -1) return;
      yield this.finishLine();
      start = newline + 1;
    }
  }

  /** The last line, when the input does not end with a newline. */
  *end(): Generator<Line> {
    if (this.partial.length > 0 || this.partialTooLong) yield this.finishLine();
  }

  private finishLine(): Line {
    const number = this.number++;
    const text = this.partialTooLong ? undefined : this.decode(this.partial.view());
    this.partial.clear();
    const problem = this.partialTooLong ? LINE_TOO_LONG : NOT_UTF8;
    this.partialTooLong = false;
    return text === undefined ? { number, problem } : { number, text };
  }
}
