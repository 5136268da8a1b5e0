import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { readAll } from './helpers.js';

describe('NDJSON records', () => {
  it('refuses a key no pet has, naming it and its nearest field, unless told to ignore it (issue 42)', async () => {
    const input =
      '{"name":"Rex","categoryId":1,"id":4}\n{"name":"Miso","categoryId":2,"stauts":"sold"}\n';
    const error: unknown = await readAll(input, 'ndjson').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      'line 2 names a field a pet does not have: "stauts" (did you mean "status"?)',
    );
    expect(await readAll(input, 'ndjson', true)).toStrictEqual([
      { line: 1, pet: { name: 'Rex', categoryId: 1n } },
      { line: 2, pet: { name: 'Miso', categoryId: 2n } },
    ]);
  });

  it('reads one pet per line, numbering physical lines and skipping blank ones', async () => {
    const input = [
      '{"name":"Rex","categoryId":1}',
      '',
      '   \t ',
      '{"name":"Miso","categoryId":2,"status":"sold"}',
      '',
    ].join('\n');
    expect(await readAll(input, 'ndjson')).toStrictEqual([
      { line: 1, pet: { name: 'Rex', categoryId: 1n } },
      { line: 4, pet: { name: 'Miso', categoryId: 2n, status: 'sold' } },
    ]);
  });

  it('accepts CRLF line endings and a last line without a newline', async () => {
    const input = '{"name":"A","categoryId":1}\r\n\r\n{"name":"B","categoryId":2}';
    expect(await readAll(input, 'ndjson')).toStrictEqual([
      { line: 1, pet: { name: 'A', categoryId: 1n } },
      { line: 3, pet: { name: 'B', categoryId: 2n } },
    ]);
  });

  it('ignores a UTF-8 BOM at the start, also when it arrives split across chunks', async () => {
    const text = '\uFEFF{"name":"Bom","categoryId":7}\n';
    const expected = [{ line: 1, pet: { name: 'Bom', categoryId: 7n } }];
    expect(await readAll(text, 'ndjson')).toStrictEqual(expected);
    const bytes = Buffer.from(text);
    const split = [bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)];
    expect(await readAll(split, 'ndjson')).toStrictEqual(expected);
  });

  it('keeps a BOM-like character that is not at the start as data', async () => {
    const records = await readAll('{"name":"\uFEFFx","categoryId":1}', 'ndjson');
    expect(records[0]?.pet?.name).toBe('\uFEFFx');
  });

  it('reports bad lines in the middle and goes on reading', async () => {
    const input = [
      '{"name":"First","categoryId":1}',
      '{"name":"Broken",',
      '[1,2]',
      '"just a string"',
      'null',
      '{"name":"Bad","categoryId":"x"}',
      '{"name":"Last","categoryId":3}',
    ].join('\n');
    const records = await readAll(input, 'ndjson');
    expect(records.map((record) => record.line)).toStrictEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(records[0]?.pet).toStrictEqual({ name: 'First', categoryId: 1n });
    expect(records[1]?.problem).toMatch(/^not valid JSON \(.*position \d+\)$/);
    for (const record of records.slice(2, 5)) {
      expect(record.problem).toMatch(/^not a JSON object/);
      expect(record.pet).toBeUndefined();
    }
    expect(records[5]?.problem).toContain('categoryId must be an integer within int64');
    expect(records[6]?.pet).toStrictEqual({ name: 'Last', categoryId: 3n });
  });

  it('does not echo an invalid line in its problem', async () => {
    const [record] = await readAll(`{"name":"SECRET${'z'.repeat(500)}`, 'ndjson');
    expect(record?.problem).toBeDefined();
    expect(record?.problem).not.toContain('SECRET');
    expect(record?.problem?.length).toBeLessThan(200);
  });

  it('keeps a categoryId beyond 2^53 exact', async () => {
    const [record] = await readAll('{"name":"Big","categoryId":9007199254740993}\n', 'ndjson');
    expect(record?.pet?.categoryId).toBe(9007199254740993n);
  });

  it('reports a line longer than 1 MiB once, and reads the next line', async () => {
    const long = `{"name":"${'x'.repeat(1024 * 1024 + 10)}","categoryId":1}`;
    const input = [long, '{"name":"After","categoryId":2}'].join('\n');
    for (const chunks of [[input], splitEvery(input, 64 * 1024)]) {
      expect(await readAll(chunks, 'ndjson')).toStrictEqual([
        { line: 1, problem: 'line longer than 1 MiB' },
        { line: 2, pet: { name: 'After', categoryId: 2n } },
      ]);
    }
  });

  it('reports a line that is not UTF-8 and reads on', async () => {
    const input = Buffer.concat([
      Buffer.from('{"name":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","categoryId":1}\n{"name":"Ok","categoryId":2}\n'),
    ]);
    expect(await readAll(input, 'ndjson')).toStrictEqual([
      { line: 1, problem: 'not valid UTF-8' },
      { line: 2, pet: { name: 'Ok', categoryId: 2n } },
    ]);
  });

  it('reads nothing from an empty input', async () => {
    expect(await readAll('', 'ndjson')).toStrictEqual([]);
    expect(await readAll('\n\n', 'ndjson')).toStrictEqual([]);
  });
});

function splitEvery(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += size) parts.push(text.slice(at, at + size));
  return parts;
}

describe('category ids written as a fraction or an exponent', () => {
  const INTEGER_ONLY = 'categoryId must be an integer within int64';

  it.each(['1e3', '1.0', '1E2', '-0.0', '2e0', '1.5', '9007199254740993.0', '1E+2'])(
    '%s is refused in NDJSON and JSON, as flags and CSV refuse it, and never sent',
    async (written) => {
      const line = `{"name":"Rex","categoryId":${written}}`;
      const [fromNdjson] = await readAll(line, 'ndjson');
      expect(fromNdjson?.problem).toBe(INTEGER_ONLY);
      expect(fromNdjson?.pet).toBeUndefined();
      const [fromArray] = await readAll(`[${line}]`, 'json');
      expect(fromArray?.problem).toBe(INTEGER_ONLY);
      const [fromCsv] = await readAll(`name,categoryId\nRex,${written}\n`, 'csv');
      expect(fromCsv?.problem).toBe(INTEGER_ONLY);
    },
  );

  it('still reads digits, and a name that merely looks like a decimal', async () => {
    const records = await readAll(
      '{"name":"v1.0 e5","categoryId":1000}\n{"name":"big","categoryId":9007199254740993}',
      'ndjson',
    );
    expect(records.map((r) => r.pet)).toStrictEqual([
      { name: 'v1.0 e5', categoryId: 1000n },
      { name: 'big', categoryId: 9007199254740993n },
    ]);
  });
});
