import { describe, expect, it } from 'vitest';
import { LineSplitter, type Line } from '../../../src/batch/input/lines.js';

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

async function collect(input: AsyncIterable<Uint8Array | string>): Promise<Line[]> {
  const splitter = new LineSplitter();
  const all: Line[] = [];
  for await (const chunk of input) {
    all.push(...splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  }
  return [...all, ...splitter.end()];
}

describe('LineSplitter', () => {
  it('gives each line with its number, whole across chunks, from bytes or strings', async () => {
    const lines = await collect(chunks('one\ntw', 'o\n\nthree'));
    expect(lines).toEqual([
      { number: 1, text: 'one' },
      { number: 2, text: 'two' },
      { number: 3, text: '' },
      { number: 4, text: 'three' },
    ]);
    async function* strings() {
      yield 'a\nb';
    }
    expect(await collect(strings())).toEqual([
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
    expect(await collect(split())).toEqual([{ number: 1, text: 'é' }]);
  });
});
