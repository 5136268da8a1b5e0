import { describe, expect, it } from 'vitest';
import { readRecords } from '../../../src/batch/input/index.js';
import { UsageError } from '../../../src/core/errors.js';
import { readAll } from './helpers.js';

describe('JSON array records', () => {
  it('numbers each element by its position in the array', async () => {
    const input = `\uFEFF[
      {"name":"Rex","categoryId":1},
      {"name":"","categoryId":2},
      42,
      {"name":"Big","categoryId":9007199254740993,"status":"pending","id":5}
    ]`;
    expect(await readAll(input, 'json')).toStrictEqual([
      { line: 1, pet: { name: 'Rex', categoryId: 1n } },
      { line: 2, problem: 'name must be a non-empty string' },
      { line: 3, problem: expect.stringMatching(/^not a JSON object/) as unknown },
      { line: 4, pet: { name: 'Big', categoryId: 9007199254740993n, status: 'pending' } },
    ]);
  });

  it('refuses an empty array: an input with no records is not a success', async () => {
    const error: unknown = await readAll(' [ ] ', 'json').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/empty array/);
  });

  it.each(['{"name":"Rex","categoryId":1}', '"pets"', 'null', '7'])(
    'refuses %s: the input must be an array',
    async (input) => {
      const error: unknown = await readAll(input, 'json').catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe('the JSON input must be an array of pets');
    },
  );

  it('refuses invalid JSON with its line, without quoting it', async () => {
    const input = '[\n{"name":"Rex","categoryId":1},\n{"name":"SECRET" oops}\n]';
    const error: unknown = await readAll(input, 'json').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(
      /^the JSON input is not valid JSON \(.*line 3\)$/,
    );
    expect((error as UsageError).message).not.toContain('SECRET');
  });

  it('refuses an input larger than 64 MiB without collecting all of it', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let produced = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        produced++;
        yield chunk;
      }
    }
    const reading = (async () => {
      for await (const _ of readRecords(endless(), 'json')) void _;
    })();
    await expect(reading).rejects.toThrow('larger than 64 MiB');
    expect(produced).toBe(65);
  });
});
