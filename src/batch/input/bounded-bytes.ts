/** A single NDJSON line or CSV record: real pets are a few hundred bytes, so one broken or
 * hostile input cannot exhaust memory. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * A reusable byte buffer that refuses to grow past a limit, so that one endless line costs
 * at most `limit` bytes however long it really is.
 */
export class BoundedBytes {
  private bytes: Buffer;
  private used = 0;

  constructor(private readonly limit: number) {
    this.bytes = Buffer.allocUnsafe(Math.min(limit, 4096));
  }

  get length(): number {
    return this.used;
  }

  /** Appends source[start, end), or returns false and appends nothing if that passes the limit. */
  append(source: Uint8Array, start: number, end: number): boolean {
    const needed = this.used + (end - start);
    if (needed > this.limit) return false;
    this.reserve(needed);
    this.bytes.set(source.subarray(start, end), this.used);
    this.used = needed;
    return true;
  }

  appendByte(byte: number): boolean {
    if (this.used + 1 > this.limit) return false;
    this.reserve(this.used + 1);
    this.bytes[this.used++] = byte;
    return true;
  }

  /** A view, valid until the next append or clear. */
  view(start = 0, end = this.used): Buffer {
    return this.bytes.subarray(start, end);
  }

  clear(): void {
    this.used = 0;
  }

  private reserve(size: number): void {
    if (size <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.min(this.limit, Math.max(size, this.bytes.length * 2)));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}
