import { describe, expect, it } from 'vitest';
import { readAhead } from '../../src/batch/read-ahead.js';

/** A source whose items come only when the test lets them. */
function gatedSource<T>(items: T[]) {
  let released = 0;
  let read = 0;
  let wake: (() => void) | undefined;
  let returned = false;
  const source: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        while (read >= released && read < items.length) {
          await new Promise<void>((resolve) => (wake = resolve));
        }
        if (read >= items.length) return { done: true, value: undefined };
        return { done: false, value: items[read++]! };
      },
      async return() {
        returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return {
    source,
    release(count: number) {
      released += count;
      wake?.();
    },
    get read() {
      return read;
    },
    get returned() {
      return returned;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('readAhead', () => {
  it('passes every item through in order, and once one counts, counts those read ahead', async () => {
    const heard: number[] = [];
    const items = readAhead(
      (async function* () {
        yield* [1, 2, 3, 4, 5, 6];
      })(),
      8,
      (n) => n % 2 === 0,
      (count) => heard.push(count) > 0,
    );
    const seen: number[] = [(await items.next()).value, (await items.next()).value];
    // A consumer busy with its second item: the rest is read, and counted, meanwhile.
    for (let i = 0; i < 10; i++) await settle();
    expect(heard.at(-1)).toBe(2);
    for await (const item of items) seen.push(item);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(heard.at(-1)).toBe(0);
  });

  it('reads nothing ahead until an item counts, nor once nobody needs the count', async () => {
    const gated = gatedSource(Array.from({ length: 20 }, (_, i) => i));
    gated.release(20);
    const none = readAhead(
      gated.source,
      8,
      () => false,
      () => true,
    );
    await none.next();
    await none.next();
    await settle();
    expect(gated.read).toBe(2);

    const unwanted = gatedSource(Array.from({ length: 20 }, (_, i) => i));
    unwanted.release(20);
    const items = readAhead(
      unwanted.source,
      8,
      () => true,
      () => false,
    );
    await items.next();
    await items.next();
    await settle();
    expect(unwanted.read).toBeLessThanOrEqual(3);
  });

  it('reads no more than its size ahead of the consumer', async () => {
    const gated = gatedSource(Array.from({ length: 20 }, (_, i) => i));
    gated.release(20);
    const items = readAhead(
      gated.source,
      5,
      () => true,
      () => true,
    );
    expect(await items.next()).toEqual({ done: false, value: 0 });
    expect(await items.next()).toEqual({ done: false, value: 1 });
    for (let i = 0; i < 10; i++) await settle();
    expect(gated.read).toBe(2 + 5);
    await items.return!();
  });

  it('hands each item over as soon as it is read, without waiting to fill its read-ahead', async () => {
    const gated = gatedSource(['a', 'b', 'c']);
    const items = readAhead(
      gated.source,
      64,
      () => true,
      () => true,
    );
    gated.release(1);
    expect(await items.next()).toEqual({ done: false, value: 'a' });
    const second = items.next();
    gated.release(1);
    expect(await second).toEqual({ done: false, value: 'b' });
  });

  it('lets the consumer stop while a read is still waiting for input, and closes the source', async () => {
    const gated = gatedSource(['a', 'b', 'c']);
    const items = readAhead(
      gated.source,
      8,
      () => true,
      () => true,
    );
    gated.release(1);
    expect(await items.next()).toEqual({ done: false, value: 'a' });
    const pending = items.next();
    await settle();
    await items.return!();
    gated.release(2);
    await pending;
    await settle();
    expect(gated.returned).toBe(true);
  });

  it('passes on a failure of the source after the items read before it', async () => {
    const items = readAhead(
      (async function* () {
        yield 1;
        yield 2;
        throw new Error('unreadable line');
      })(),
      8,
      () => true,
      () => true,
    );
    expect(await items.next()).toEqual({ done: false, value: 1 });
    expect(await items.next()).toEqual({ done: false, value: 2 });
    await expect(items.next()).rejects.toThrow('unreadable line');
  });
});
