import { describe, expect, it } from 'vitest';
import {
  chooseFormat,
  formatFromContent,
  type InputFormat,
} from '../../../src/batch/input/index.js';

describe('chooseFormat', () => {
  it.each([
    ['pets.ndjson', undefined, 'ndjson'],
    ['pets.jsonl', undefined, 'ndjson'],
    ['pets.json', undefined, 'json'],
    ['pets.csv', undefined, 'csv'],
    ['PETS.CSV', undefined, 'csv'],
    ['dir.csv/pets.JSONL', undefined, 'ndjson'],
    ['pets.csv', 'json', 'json'],
    ['pets.txt', 'csv', 'csv'],
    ['-', 'csv', 'csv'],
    ['-', 'json', 'json'],
  ])('%s with --format %s reads as %s', (path, explicit, expected) => {
    expect(chooseFormat(path, explicit as InputFormat | undefined)).toBe(expected);
  });

  it.each([['-'], ['pets.txt'], ['pets'], ['dir.csv/pets']])(
    '%s without --format is left to the content',
    (path) => {
      expect(chooseFormat(path, undefined)).toBeUndefined();
    },
  );
});

async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield Buffer.from(part);
}

async function text(input: AsyncIterable<Buffer>): Promise<string> {
  let all = '';
  for await (const chunk of input) all += chunk.toString();
  return all;
}

describe('formatFromContent', () => {
  it.each([
    [['[{"name":"A","categoryId":1}]'], 'json'],
    [['\n  \t', '\r\n', ' [', '{}]'], 'json'],
    [['{"name":"A","categoryId":1}\n'], 'ndjson'],
    [['\uFEFF', '{"name":"A"}'], 'ndjson'],
    [['name,categoryId\nA,1\n'], 'csv'],
    [['  \n', 'categoryId,name\n'], 'csv'],
    [[], 'ndjson'],
    [['   \n'], 'ndjson'],
  ])('%j reads as %s, the bytes looked at kept', async (parts, format) => {
    const found = await formatFromContent(chunks(...parts));
    expect(found.format).toBe(format);
    expect(await text(found.input)).toBe(parts.join('').replace(/^\uFEFF/, ''));
  });

  it('reads no further than the first non-blank byte', async () => {
    let pulled = 0;
    async function* counted(): AsyncGenerator<Buffer> {
      for (const part of ['  ', '[', 'never']) {
        pulled++;
        yield Buffer.from(part);
      }
    }
    expect((await formatFromContent(counted())).format).toBe('json');
    expect(pulled).toBe(2);
  });
});
