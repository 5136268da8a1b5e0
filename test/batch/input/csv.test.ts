import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { oneByteChunks, readAll } from './helpers.js';

async function usageErrorOf(input: string): Promise<UsageError> {
  const error: unknown = await readAll(input, 'csv').catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('CSV records', () => {
  it('reads rows under a header of name, categoryId, status', async () => {
    const input = 'name,categoryId,status\nRex,1,available\nMiso,2,\n';
    expect(await readAll(input, 'csv')).toStrictEqual([
      { line: 2, pet: { name: 'Rex', categoryId: 1n, status: 'available' } },
      { line: 3, pet: { name: 'Miso', categoryId: 2n } },
    ]);
  });

  it('handles quoted commas, "" escapes and newlines inside quotes', async () => {
    const input = [
      'name,categoryId',
      '"Rex, the dog",1',
      '"Say ""hi""",2',
      '"two',
      'lines",3',
      '"three\r\nlines\n",4',
      '',
      'After,5',
    ].join('\n');
    expect(await readAll(input, 'csv')).toStrictEqual([
      { line: 2, pet: { name: 'Rex, the dog', categoryId: 1n } },
      { line: 3, pet: { name: 'Say "hi"', categoryId: 2n } },
      { line: 4, pet: { name: 'two\nlines', categoryId: 3n } },
      { line: 6, pet: { name: 'three\r\nlines\n', categoryId: 4n } },
      { line: 10, pet: { name: 'After', categoryId: 5n } },
    ]);
  });

  it('accepts CRLF and LF line endings and skips empty lines', async () => {
    const input = 'name,categoryId\r\n\r\nRex,1\r\n"Quoted",2\r\n\nMiso,3\r\n';
    expect(await readAll(input, 'csv')).toStrictEqual([
      { line: 3, pet: { name: 'Rex', categoryId: 1n } },
      { line: 4, pet: { name: 'Quoted', categoryId: 2n } },
      { line: 6, pet: { name: 'Miso', categoryId: 3n } },
    ]);
  });

  it('ends lines at a lone CR (old Mac files), in whole and in 1-byte chunks', async () => {
    // A CR inside quotes ends a physical line too; a CRLF there ends one (test above).
    const input = 'name,categoryId\rRex,1\r\r"Two\rlines",2\rMiso,3\r\nEnd,4';
    const expected = [
      { line: 2, pet: { name: 'Rex', categoryId: 1n } },
      { line: 4, pet: { name: 'Two\rlines', categoryId: 2n } },
      { line: 6, pet: { name: 'Miso', categoryId: 3n } },
      { line: 7, pet: { name: 'End', categoryId: 4n } },
    ];
    expect(await readAll(input, 'csv')).toStrictEqual(expected);
    expect(await readAll(oneByteChunks(input), 'csv')).toStrictEqual(expected);
  });

  it.each(['name,categoryId\n', 'name,categoryId\r\n\r\n  \n'])(
    'refuses a header with no records after it (%j): not a success of nothing',
    async (input) => {
      await expect(readAll(input, 'csv')).rejects.toThrow(/header row but no records/);
    },
  );

  it('matches reordered, capitalised, padded headers; unknown columns only with ignoreUnknown', async () => {
    const input = ' Status ,colour,CATEGORYID,Name\nsold,brown,9007199254740993,Rex\n';
    expect(await readAll(input, 'csv', true)).toStrictEqual([
      { line: 2, pet: { name: 'Rex', categoryId: 9007199254740993n, status: 'sold' } },
    ]);
    expect((await usageErrorOf(input)).message).toBe(
      'the CSV header names a field a pet does not have: "colour"',
    );
  });

  it('refuses a misspelt column, naming each with the field nearest it (issue 42)', async () => {
    const error = await usageErrorOf('name,categoryId,stauts,catgoryId,x\nRex,1,sold,a,b\n');
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      'the CSV header names fields a pet does not have: "stauts" (did you mean "status"?), "catgoryId" (did you mean "categoryId"?), "x"',
    );
    expect(error.hint).toContain('--ignore-unknown');
  });

  it('ignores a BOM before the header', async () => {
    const records = await readAll('\uFEFFname,categoryId\nRex,1\n', 'csv');
    expect(records).toStrictEqual([{ line: 2, pet: { name: 'Rex', categoryId: 1n } }]);
  });

  it('passes unicode names through unchanged', async () => {
    const names = ['柴犬', 'Miso 🐱', 'Zoë, the "great"'];
    const input = 'name,categoryId\n柴犬,1\nMiso 🐱,2\n"Zoë, the ""great""",3\n';
    const records = await readAll(input, 'csv');
    expect(records.map((record) => record.pet?.name)).toStrictEqual(names);
    expect(records.map((record) => record.line)).toStrictEqual([2, 3, 4]);
  });

  it('reports rows with the wrong number of fields and reads on', async () => {
    const input = 'name,categoryId,status\nRex,1\nMiso,2,sold,extra\nOk,3,pending\nalone\n';
    expect(await readAll(input, 'csv')).toStrictEqual([
      { line: 2, problem: 'the row has 2 fields but the header has 3' },
      { line: 3, problem: 'the row has 4 fields but the header has 3' },
      { line: 4, pet: { name: 'Ok', categoryId: 3n, status: 'pending' } },
      { line: 5, problem: 'the row has 1 field but the header has 3' },
    ]);
  });

  it('reports bad values naming the field', async () => {
    const input = 'name,categoryId,status\n,1,\nRex,one,\nMiso,2,lost\n';
    expect(await readAll(input, 'csv')).toStrictEqual([
      { line: 2, problem: 'name must be a non-empty string' },
      { line: 3, problem: 'categoryId must be an integer within int64' },
      { line: 4, problem: 'status must be one of available, pending, sold' },
    ]);
  });

  it('reports text after a closing quote, and an unclosed quote at the end', async () => {
    const input = 'name,categoryId\n"Rex"x,1\nOk,2\n"Open,3\nstill open';
    expect(await readAll(input, 'csv')).toStrictEqual([
      {
        line: 2,
        problem: 'a closing quote must be followed by a comma or the end of the line',
      },
      { line: 3, pet: { name: 'Ok', categoryId: 2n } },
      { line: 4, problem: 'a quoted field is not closed before the end of the input' },
    ]);
  });

  it('keeps a stray quote inside an unquoted field as data', async () => {
    const [record] = await readAll('name,categoryId\nRex "Jr",1\n', 'csv');
    expect(record?.pet?.name).toBe('Rex "Jr"');
  });

  it('reports a record longer than 1 MiB and finds the next one', async () => {
    const long = `"${'x\n'.repeat(600 * 1024)}",1`;
    const input = `name,categoryId\n${long}\nAfter,2\n`;
    expect(await readAll(input, 'csv')).toStrictEqual([
      { line: 2, problem: 'record longer than 1 MiB' },
      { line: 2 + 600 * 1024 + 1, pet: { name: 'After', categoryId: 2n } },
    ]);
  });

  it.each([
    ['name\nRex\n', 'categoryId'],
    ['categoryId,status\n1,sold\n', 'name'],
    ['colour,size\nbrown,small\n', 'name, categoryId'],
  ])('refuses a header without the needed columns: %j', async (input, missing) => {
    const error = await usageErrorOf(input);
    expect(error.message).toBe(
      `the CSV header must have the columns name and categoryId; missing: ${missing}`,
    );
    expect(error.exitCode).toBe(2);
  });

  it('refuses a header that names a column twice', async () => {
    const error = await usageErrorOf('name,categoryId,NAME\nRex,1,Max\n');
    expect(error.message).toContain('name more than once');
  });

  it('refuses an empty input: there is no header', async () => {
    const error = await usageErrorOf('\n\n');
    expect(error.message).toContain('needs a header row');
  });
});
