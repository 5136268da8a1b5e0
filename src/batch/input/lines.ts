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
      if (newline !== -1 && this.partial.length === 0 && !this.partialTooLong) {
        // The common case: the whole line is inside this chunk, so decode it in place.
        yield end - start > MAX_RECORD_BYTES
          ? { number: this.number, problem: LINE_TOO_LONG }
          : this.toLine(chunk.subarray(start, end));
      } else {
        if (!this.partialTooLong && !this.partial.append(chunk, start, end)) {
          this.partialTooLong = true;
        }
        if (newline === -1) return;
        yield this.finishPartial();
      }
      this.number++;
      start = newline + 1;
    }
  }

  /** The last line, when the input does not end with a newline. */
  *end(): Generator<Line> {
    if (this.partial.length > 0 || this.partialTooLong) yield this.finishPartial();
  }

  private toLine(bytes: Uint8Array): Line {
    const text = this.decode(bytes);
    return text === undefined
      ? { number: this.number, problem: NOT_UTF8 }
      : { number: this.number, text };
  }

  private finishPartial(): Line {
    const line = this.partialTooLong
      ? { number: this.number, problem: LINE_TOO_LONG }
      : this.toLine(this.partial.view());
    this.partial.clear();
    this.partialTooLong = false;
    return line;
  }
}

/** One line at a time from a stream, as LineSplitter cuts it. */
export async function* streamLines(input: AsyncIterable<Uint8Array | string>): AsyncIterable<Line> {
  const splitter = new LineSplitter();
  for await (const chunk of input) {
    yield* splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  yield* splitter.end();
}
