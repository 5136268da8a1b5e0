import { followAbort } from '../core/abort.js';

/**
 * Runs `work` over a stream of items with at most `concurrency` in flight and hands the
 * results to `emit` in input order. Memory stays flat: an item is read only when there is
 * room, and results waiting for a slow predecessor are bounded by the window.
 */

export interface WorkResult<R> {
  result: R;
  /** Set when this result means the run must end (e.g. the server keeps failing). */
  stop?: unknown;
}

export interface BatchRun<I, R> {
  items: AsyncIterable<I>;
  concurrency: number;
  /**
   * Returns the item's result; throws to end the run with no result for this item. Called
   * for the items in input order, so that what it does before its first await (such as
   * naming an item by those before it) sees them in that order. `halted` aborts when the run
   * stops (`stop`, or a result's or an error's stop): from then on nothing more is sent.
   */
  work(item: I, halted: AbortSignal): Promise<WorkResult<R>>;
  emit(item: I, result: R): void;
  /**
   * The result of an item the run stopped before doing: one whose work threw, and every item
   * left in the input, read to its end, so that each gets its result in order.
   */
  notDone?(item: I): R;
  /** Stops reading new items (Ctrl-C); items under way finish. */
  stop?: AbortSignal;
}

export interface BatchEnd {
  /** Why the run ended before the input did, if it did. */
  stoppedBy?: unknown;
  /** The input's end was not reached: `stop` aborted its reading (it may have none: stdin). */
  unread?: true;
}

const WINDOW_PER_WORKER = 8;

export async function runBatch<I, R>(batch: BatchRun<I, R>): Promise<BatchEnd> {
  const iterator = batch.items[Symbol.asyncIterator]();
  const window = Math.max(1, batch.concurrency) * WINDOW_PER_WORKER;
  const order = new InOrder<I, R>(window, (item, result) => batch.emit(item, result));
  let nextSeq = 0;
  let stoppedBy: unknown;
  let exhausted = false;
  let leftOver = false;

  const stopping = () => stoppedBy !== undefined || batch.stop?.aborted === true;
  // One stop for the whole run: the items under way send nothing more once it is decided.
  const halt = followAbort([batch.stop]);
  const stopWith = (reason: unknown) => {
    if (stoppedBy !== undefined) return;
    stoppedBy = reason;
    halt.abort(reason);
  };

  // A stop aborts the input's reading too: what was read before it is the rest of the input.
  let unread = false;
  const read = () =>
    iterator.next().catch((error: unknown) => {
      if (!batch.stop?.aborted) throw error;
      unread = true;
      return { done: true, value: undefined } as const;
    });
  // Reading is shared by the workers but must not overlap: one next() at a time.
  let reading: Promise<unknown> = Promise.resolve();
  const take = async (): Promise<{ seq: number; item: I } | undefined> => {
    const turn = reading.then(async () => {
      await order.roomFor(nextSeq, stopping);
      if (exhausted || stopping()) return undefined;
      const next = await read();
      if (next.done) {
        exhausted = true;
        return undefined;
      }
      return { seq: nextSeq++, item: next.value };
    });
    reading = turn.catch(() => undefined);
    return turn;
  };

  const worker = async () => {
    for (let taken = await take(); taken; taken = await take()) {
      const { seq, item } = taken;
      try {
        const outcome = await batch.work(item, halt.signal);
        order.finish(seq, item, outcome.result);
        if (outcome.stop !== undefined) stopWith(outcome.stop);
      } catch (error) {
        order.finish(seq, item, batch.notDone?.(item));
        stopWith(error);
      }
      order.emitReady();
    }
  };

  try {
    await Promise.all(Array.from({ length: Math.max(1, batch.concurrency) }, worker));
    leftOver = !exhausted || unread;
    order.emitReady();
    if (batch.notDone && leftOver) {
      for (let next = await read(); !next.done; next = await read()) {
        batch.emit(next.value, batch.notDone(next.value));
      }
    }
  } finally {
    halt.dispose();
    await iterator.return?.();
  }
  order.emitReady();
  // Stopped before the input ran out: the run is unfinished, whatever the requests in flight
  // did, and says so rather than pass for done.
  if (stoppedBy === undefined && batch.stop?.aborted && leftOver) stoppedBy = batch.stop.reason;
  return {
    ...(stoppedBy === undefined ? {} : { stoppedBy }),
    ...(unread ? { unread: true as const } : {}),
  };
}

/**
 * Items done but not yet emitted, each at `seq % window`: at most a window apart, they never
 * share a place. A fixed array, not a Map: a Map's table is reallocated as it fills and
 * empties, every few items, and those tables outlive enough collections to be promoted, so the
 * old generation would grow with the input until a full collection.
 */
class InOrder<I, R> {
  private readonly finished: Array<{ item: I; result?: R } | undefined>;
  private nextToEmit = 0;
  private roomMade: (() => void) | undefined;

  constructor(
    private readonly window: number,
    private readonly emit: (item: I, result: R) => void,
  ) {
    this.finished = new Array(window).fill(undefined);
  }

  /** Waits until item `seq` is less than a window past the next to emit, or `stopping`. */
  async roomFor(seq: number, stopping: () => boolean): Promise<void> {
    while (seq - this.nextToEmit >= this.window && !stopping()) {
      await new Promise<void>((resolve) => (this.roomMade = resolve));
    }
  }

  /** Item `seq` is done: with no result, it is passed over in order. */
  finish(seq: number, item: I, result: R | undefined): void {
    this.finished[seq % this.window] = { item, result };
  }

  /** Emits the results done from the next to emit up to the first not done. */
  emitReady(): void {
    const { finished, window } = this;
    for (let done; (done = finished[this.nextToEmit % window]);) {
      finished[this.nextToEmit++ % window] = undefined;
      if (done.result !== undefined) this.emit(done.item, done.result);
    }
    this.roomMade?.();
  }
}
