import { describe, expect, it } from 'vitest';
import { countLines, streamLines } from '../../../src/batch/input/lines.js';

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('countLines', () => {
  it('counts the lines that are not blank, across chunks, the last one without a newline', async () => {
    expect(await countLines(chunks('{"a":1}\n\n \t\r\n{"b"', ':2}\n{"c":3}'))).toBe(3);
  });

  it('counts a line that is not UTF-8 or too long: the reader reports it as a record', async () => {
    const bad = Buffer.from([0xff, 0x0a]);
    async function* input() {
      yield bad;
      yield Buffer.alloc(1024 * 1024 + 1, 0x61);
    }
    expect(await countLines(input())).toBe(2);
  });
});

describe('streamLines', () => {
  it('gives each line with its number, whole across chunks, from bytes or strings', async () => {
    const lines = await collect(streamLines(chunks('one\ntw', 'o\n\nthree')));
    expect(lines).toEqual([
      { number: 1, text: 'one' },
      { number: 2, text: 'two' },
      { number: 3, text: '' },
      { number: 4, text: 'three' },
    ]);
    async function* strings() {
      yield 'a\nb';
    }
    expect(await collect(streamLines(strings()))).toEqual([
      { number: 1, text: 'a' },
      { number: 2, text: 'b' },
    ]);
  });

  it('keeps a character split between chunks whole', async () => {
    const bytes = Buffer.from('é\n');
    async function* split() {
      yield bytes.subarray(0, 1);
      yield bytes.subarray(1);
    }
    expect(await collect(streamLines(split()))).toEqual([{ number: 1, text: 'é' }]);
  });
});
