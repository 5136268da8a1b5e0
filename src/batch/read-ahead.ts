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
  const source = items[Symbol.asyncIterator]();
  const buffer: T[] = [];
  const counted: boolean[] = [];
  let ahead = 0;
  let wanted = true;
  let engaged = false;
  let done = false;
  let failure: { error: unknown } | undefined;
  let reading: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let roomMade: (() => void) | undefined;
  let closed = false;

  const notify = () => {
    wake?.();
    wake = undefined;
  };

  const pump = async () => {
    try {
      while (!closed && wanted) {
        if (buffer.length >= size) {
          await new Promise<void>((resolve) => (roomMade = resolve));
          continue;
        }
        const next = await source.next();
        if (next.done || closed) {
          done = true;
          break;
        }
        const counts = look(next.value);
        buffer.push(next.value);
        counted.push(counts);
        if (counts) wanted = onAhead(++ahead);
        notify();
      }
    } catch (error) {
      failure = { error };
      done = true;
    }
    reading = undefined;
    notify();
  };

  const direct = (): Promise<IteratorResult<T>> =>
    source.next().then((next) => {
      if (next.done) done = true;
      else if (look(next.value) && wanted) {
        engaged = true;
        reading ??= pump();
      }
      return next;
    });

  const fromBuffer = async (): Promise<IteratorResult<T>> => {
    for (;;) {
      if (buffer.length > 0) {
        const item = buffer.shift() as T;
        if (counted.shift()) wanted = onAhead(--ahead);
        roomMade?.();
        roomMade = undefined;
        return { done: false, value: item };
      }
      if (failure) throw failure.error;
      if (done) return { done: true, value: undefined };
      if (!reading) {
        if (!engaged || !wanted) return direct();
        reading = pump();
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };

  const iterator: AsyncIterableIterator<T> = {
    next(): Promise<IteratorResult<T>> {
      // The common path, before anything counts or once nobody needs to know: no layer.
      const plain = buffer.length === 0 && !reading && !failure && !done;
      return plain && !(engaged && wanted) ? direct() : fromBuffer();
    },
    async return(): Promise<IteratorResult<T>> {
      closed = true;
      roomMade?.();
      // A read still waiting for input (a pipe kept open) must not hold up the consumer.
      if (reading) void reading.then(() => source.return?.());
      else await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
