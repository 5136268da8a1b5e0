import { describe, expect, it } from 'vitest';
import type { InputFormat } from '../../../src/batch/input/index.js';
import { oneByteChunks, readAll } from './helpers.js';

const NDJSON = [
  '\uFEFF{"name":"柴犬","categoryId":9007199254740993}',
  '',
  '{"name":"Miso 🐱","categoryId":2,"status":"sold"}\r',
  '{"broken":',
  '[]',
  '{"name":"Zoë","categoryId":3}',
].join('\n');

const JSON_ARRAY = '\uFEFF[{"name":"柴犬","categoryId":9007199254740993},{"name":"🐱"},7]';

const CSV = [
  '\uFEFFStatus,Name,categoryId',
  'sold,柴犬,9007199254740993',
  '',
  ',"Zoë, the ""great""",2',
  'pending,"Miso 🐱',
  'on two lines",3',
  'lost,Bad,4',
  ',"x"y,5',
  'too,many,fields,here',
  ',Last,6',
].join('\r\n');

describe('chunk boundaries', () => {
  it.each([
    ['ndjson', NDJSON, 5],
    ['json', JSON_ARRAY, 3],
    ['csv', CSV, 7],
  ] as const)(
    '%s split into 1-byte chunks reads exactly as in one chunk',
    async (format: InputFormat, input: string, expectedCount: number) => {
      const whole = await readAll(input, format);
      expect(whole).toHaveLength(expectedCount);
      expect(whole.filter((record) => record.pet !== undefined).length).toBeGreaterThan(0);
      expect(whole.filter((record) => record.problem !== undefined).length).toBeGreaterThan(0);
      expect(await readAll(oneByteChunks(input), format)).toStrictEqual(whole);
      expect(await readAll([...input], format)).toStrictEqual(whole);
    },
  );

  it('reads CSV line numbers right across chunks', async () => {
    const records = await readAll(oneByteChunks(CSV), 'csv');
    expect(records.map((record) => record.line)).toStrictEqual([2, 4, 5, 7, 8, 9, 10]);
    expect(records[2]?.pet?.name).toBe('Miso 🐱\r\non two lines');
  });
});
