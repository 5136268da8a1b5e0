import { BoundedBytes, MAX_RECORD_BYTES } from './bounded-bytes.js';
import { NOT_UTF8, strictUtf8Decoder } from './utf8.js';

/** One CSV record (RFC 4180) with the physical line it starts on, or why it cannot be read. */
export type CsvRow = { line: number; fields: string[] } | { line: number; problem: string };

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

// Where the parser is inside the current field.
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** A quote inside a quoted field: either the first of `""` or the closing quote. */
const QUOTE_IN_QUOTED = 3;
const AFTER_CLOSING_QUOTE = 4;
type FieldState = 0 | 1 | 2 | 3 | 4;

const RECORD_TOO_LONG = 'record longer than 1 MiB';
const TEXT_AFTER_QUOTE = 'a closing quote must be followed by a comma or the end of the line';
const QUOTE_NOT_CLOSED = 'a quoted field is not closed before the end of the input';
const BLANK = /^[ \t]*$/;

/**
 * Parses CSV bytes chunk by chunk, a byte at a time. Memory is bounded by one record (at most
 * 1 MiB): beyond that, content is dropped but the quoting is still followed, so the next
 * record is found. Works on bytes because all delimiters are ASCII; fields are decoded once
 * complete.
 */
export class CsvRowParser {
  private readonly decode = strictUtf8Decoder();
  private readonly recordBytes = new BoundedBytes(MAX_RECORD_BYTES);
  private readonly fieldEnds: number[] = [];
  private state: FieldState = FIELD_START;
  /**
   * The byte before was `\r`, which ended a line: a `\n` right after it (CRLF) ends nothing
   * more. Outside quotes that `\n` is dropped; inside, it is kept as data.
   */
  private afterCarriageReturn = false;
  private line = 1;
  /** The line the record under way starts on; 0 between records. */
  private recordLine = 0;
  private recordTooLong = false;
  private firstFieldQuoted = false;
  private malformed: string | undefined;

  *push(chunk: Uint8Array): Generator<CsvRow> {
    for (const byte of chunk) {
      const crlf = this.afterCarriageReturn && byte === LF;
      this.afterCarriageReturn = byte === CR;
      // After a CR inside quotes the state is still QUOTED, and that LF is data.
      if (crlf && this.state !== QUOTED) continue;
      if (this.recordLine === 0) this.recordLine = this.line;
      if (this.state === QUOTED) {
        if (byte === QUOTE) this.state = QUOTE_IN_QUOTED;
        else this.append(byte);
        if (byte === CR || (byte === LF && !crlf)) this.line++;
        continue;
      }
      if (this.state === QUOTE_IN_QUOTED) {
        this.state = byte === QUOTE ? QUOTED : AFTER_CLOSING_QUOTE;
        if (byte === QUOTE) {
          this.append(byte);
          continue;
        }
      }
      if (byte === COMMA) {
        this.endField();
      } else if (byte === LF || byte === CR) {
        // A line ends at LF, CRLF or a lone CR (old Mac files).
        this.line++;
        const row = this.endRecord();
        if (row !== undefined) yield row;
      } else if (this.state === AFTER_CLOSING_QUOTE) {
        this.malformed ??= TEXT_AFTER_QUOTE;
      } else if (this.state === FIELD_START && byte === QUOTE) {
        if (this.fieldEnds.length === 0) this.firstFieldQuoted = true;
        this.state = QUOTED;
      } else {
        // A stray quote inside an unquoted field is kept as data, as most readers do.
        this.append(byte);
        this.state = UNQUOTED;
      }
    }
  }

  *end(): Generator<CsvRow> {
    if (this.recordLine === 0) return;
    if (this.state === QUOTED) this.malformed ??= QUOTE_NOT_CLOSED;
    const row = this.endRecord();
    if (row !== undefined) yield row;
  }

  private append(byte: number): void {
    if (!this.recordTooLong && !this.recordBytes.appendByte(byte)) this.recordTooLong = true;
  }

  private endField(): void {
    // Once too long, field boundaries are not kept either: a line of commas is also unbounded.
    if (!this.recordTooLong) this.fieldEnds.push(this.recordBytes.length);
    this.state = FIELD_START;
  }

  /** Returns the finished row, or undefined for an empty line. */
  private endRecord(): CsvRow | undefined {
    this.endField();
    const row = this.finishedRow();
    this.recordBytes.clear();
    this.fieldEnds.length = 0;
    this.state = FIELD_START;
    this.recordLine = 0;
    this.recordTooLong = false;
    this.firstFieldQuoted = false;
    this.malformed = undefined;
    return row;
  }

  private finishedRow(): CsvRow | undefined {
    const line = this.recordLine;
    if (this.recordTooLong) return { line, problem: RECORD_TOO_LONG };
    if (this.malformed !== undefined) return { line, problem: this.malformed };
    const fields: string[] = [];
    let start = 0;
    for (const end of this.fieldEnds) {
      const text = this.decode(this.recordBytes.view(start, end));
      if (text === undefined) return { line, problem: NOT_UTF8 };
      fields.push(text);
      start = end;
    }
    const [only] = fields;
    if (fields.length === 1 && !this.firstFieldQuoted && only !== undefined && BLANK.test(only)) {
      return undefined;
    }
    return { line, fields };
  }
}
