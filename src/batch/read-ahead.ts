/**
 * Passes `items` through in order, showing each to `look` once, in input order. Once `look`
 * has said an item counts (a create to send), it reads up to `size` items ahead of the
 * consumer in the background, so that a batch knows some of what is still to come before it
 * asks for it: `onAhead` hears how many of the items read and not yet taken count, and stops
 * the reading ahead by returning false (nobody needs to know). Until then, and after, an item
 * is read only when asked for, with no layer per item around the input. The consumer never
 * waits for the reading ahead: it gets each item as soon as it has been read.
 */
export function readAhead<T>(
  items: AsyncIterable<T>,
  size: number,
  look: (item: T) => boolean,
  onAhead: (count: number) => boolean,
): AsyncIterableIterator<T> {
  return new ReadAhead(items[Symbol.asyncIterator](), size, look, onAhead);
}

class ReadAhead<T> implements AsyncIterableIterator<T> {
  /** Items read ahead and not yet taken, each with whether it counts. */
  private readonly buffer: { item: T; counts: boolean }[] = [];
  /** How many items in the buffer count. */
  private ahead = 0;
  /** Whether anybody still wants to hear of the items ahead (onAhead's last answer). */
  private wanted = true;
  /** Whether an item has counted yet: nothing is read ahead before one does. */
  private engaged = false;
  private done = false;
  private closed = false;
  private failure: { error: unknown } | undefined;
  private reading: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private roomMade: (() => void) | undefined;

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly size: number,
    private readonly look: (item: T) => boolean,
    private readonly onAhead: (count: number) => boolean,
  ) {}

  next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0) return Promise.resolve(this.take());
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    // Before anything counts, or once nobody needs to know: the input as it is, no layer.
    if (!this.reading && !(this.engaged && this.wanted)) return this.readOne();
    return this.afterReadingAhead();
  }

  async return(): Promise<IteratorResult<T>> {
    this.closed = true;
    this.makeRoom();
    // A read still waiting for input (a pipe kept open) must not hold up the consumer.
    if (this.reading) void this.reading.then(() => this.source.return?.());
    else await this.source.return?.();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private take(): IteratorResult<T> {
    const { item, counts } = this.buffer.shift()!;
    if (counts) this.wanted = this.onAhead(--this.ahead);
    this.makeRoom();
    return { done: false, value: item };
  }

  private readOne(): Promise<IteratorResult<T>> {
    return this.source.next().then((next) => {
      if (next.done) this.done = true;
      else if (this.look(next.value) && this.wanted) {
        this.engaged = true;
        this.reading ??= this.readAheadInBackground();
      }
      return next;
    });
  }

  /** The next item once the background read has one, or has stopped. */
  private async afterReadingAhead(): Promise<IteratorResult<T>> {
    this.reading ??= this.readAheadInBackground();
    while (this.stillReading()) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return this.next();
  }

  /** Whether the background read has yet to give the next item, or to stop. */
  private stillReading(): boolean {
    return this.buffer.length === 0 && this.reading !== undefined && !this.failure && !this.done;
  }

  private async readAheadInBackground(): Promise<void> {
    try {
      while (!this.closed && this.wanted) {
        if (this.buffer.length >= this.size) {
          await new Promise<void>((resolve) => (this.roomMade = resolve));
          continue;
        }
        const next = await this.source.next();
        if (next.done || this.closed) {
          this.done = true;
          break;
        }
        const counts = this.look(next.value);
        this.buffer.push({ item: next.value, counts });
        if (counts) this.wanted = this.onAhead(++this.ahead);
        this.notify();
      }
    } catch (error) {
      this.failure = { error };
      this.done = true;
    }
    this.reading = undefined;
    this.notify();
  }

  private notify(): void {
    this.wake?.();
    this.wake = undefined;
  }

  private makeRoom(): void {
    this.roomMade?.();
    this.roomMade = undefined;
  }
}
