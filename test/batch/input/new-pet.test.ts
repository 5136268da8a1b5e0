import { describe, expect, it } from 'vitest';
import { toNewPet } from '../../../src/batch/input/index.js';

const STATUS = 'status must be one of available, pending, sold';
const CATEGORY = 'categoryId must be an integer within int64';

describe('toNewPet from JSON', () => {
  it.each([
    [
      { name: 'Rex', categoryId: 1 },
      { name: 'Rex', categoryId: 1n },
    ],
    [
      { name: 'Rex', categoryId: 1, status: 'sold' },
      { name: 'Rex', categoryId: 1n, status: 'sold' },
    ],
    [
      { name: 'Big', categoryId: 9007199254740993n },
      { name: 'Big', categoryId: 9007199254740993n },
    ],
    [
      { name: 'Max', categoryId: 9223372036854775807n },
      { name: 'Max', categoryId: 9223372036854775807n },
    ],
    [
      { name: 'Neg', categoryId: -3 },
      { name: 'Neg', categoryId: -3n },
    ],
    [
      { name: '  padded  ', categoryId: 2 },
      { name: '  padded  ', categoryId: 2n },
    ],
    [
      { name: 'Rex', categoryId: 1, id: 99, extra: true },
      { name: 'Rex', categoryId: 1n },
    ],
    [
      { name: '柴犬', categoryId: 0 },
      { name: '柴犬', categoryId: 0n },
    ],
  ])('accepts %o', (fields, expected) => {
    expect(toNewPet(fields, 'json')).toStrictEqual(expected);
  });

  it.each([
    [{ categoryId: 1 }, 'name is required'],
    [{ name: '', categoryId: 1 }, 'name must be a non-empty string'],
    [{ name: '   ', categoryId: 1 }, 'name must be a non-empty string'],
    [{ name: 42, categoryId: 1 }, 'name must be a non-empty string'],
    [{ name: null, categoryId: 1 }, 'name must be a non-empty string'],
    [{ name: 'Rex' }, 'categoryId is required'],
    [{ name: 'Rex', categoryId: '1' }, `${CATEGORY} (a JSON number, not a string)`],
    [{ name: 'Rex', categoryId: 1.5 }, CATEGORY],
    [{ name: 'Rex', categoryId: 1e300 }, CATEGORY],
    [{ name: 'Rex', categoryId: 9223372036854775808n }, CATEGORY],
    [{ name: 'Rex', categoryId: null }, CATEGORY],
    [{ name: 'Rex', categoryId: true }, CATEGORY],
    [{ name: 'Rex', categoryId: 1, status: 'adopted' }, STATUS],
    [{ name: 'Rex', categoryId: 1, status: 'Sold' }, STATUS],
    [{ name: 'Rex', categoryId: 1, status: '' }, STATUS],
    [{ name: 'Rex', categoryId: 1, status: null }, STATUS],
  ])('refuses %o', (fields, problem) => {
    expect(toNewPet(fields, 'json')).toContain(problem);
  });

  it('names every bad field in one problem', () => {
    const problem = toNewPet({ name: '', categoryId: 'x', status: 1 }, 'json');
    expect(problem).toBe(
      'name must be a non-empty string; ' + `${CATEGORY} (a JSON number, not a string); ${STATUS}`,
    );
  });

  it('ignores fields that only the prototype has', () => {
    const fields = Object.create({ name: 'Inherited', categoryId: 1 }) as Record<string, unknown>;
    expect(toNewPet(fields, 'json')).toBe(
      'name is required: a non-empty string; categoryId is required: an integer within int64',
    );
  });

  it('keeps problems short and free of the input', () => {
    const problem = toNewPet({ name: 'x'.repeat(10_000), categoryId: 'y'.repeat(10_000) }, 'json');
    expect(typeof problem).toBe('string');
    expect((problem as string).length).toBeLessThan(200);
    expect(problem).not.toContain('yyy');
  });
});

describe('toNewPet from CSV', () => {
  it.each([
    [
      { name: 'Rex', categoryId: '1' },
      { name: 'Rex', categoryId: 1n },
    ],
    [
      { name: 'Rex', categoryId: ' 12 ' },
      { name: 'Rex', categoryId: 12n },
    ],
    [
      { name: 'Big', categoryId: '9007199254740993' },
      { name: 'Big', categoryId: 9007199254740993n },
    ],
    [
      { name: 'Min', categoryId: '-9223372036854775808' },
      { name: 'Min', categoryId: -9223372036854775808n },
    ],
    [
      { name: 'Rex', categoryId: '1', status: '' },
      { name: 'Rex', categoryId: 1n },
    ],
    [
      { name: 'Rex', categoryId: '1', status: '  ' },
      { name: 'Rex', categoryId: 1n },
    ],
    [
      { name: 'Rex', categoryId: '1', status: 'pending' },
      { name: 'Rex', categoryId: 1n, status: 'pending' },
    ],
    [
      { name: 'Rex', categoryId: '1', status: ' available ' },
      { name: 'Rex', categoryId: 1n, status: 'available' },
    ],
    [
      { name: ' Rex ', categoryId: '1' },
      { name: ' Rex ', categoryId: 1n },
    ],
  ])('accepts %o', (fields, expected) => {
    expect(toNewPet(fields, 'csv')).toStrictEqual(expected);
  });

  it.each([
    [{ name: '', categoryId: '1' }, 'name must be a non-empty string'],
    [{ name: 'Rex', categoryId: '' }, 'categoryId is required'],
    [{ name: 'Rex', categoryId: 'abc' }, CATEGORY],
    [{ name: 'Rex', categoryId: '1.0' }, CATEGORY],
    [{ name: 'Rex', categoryId: '1e3' }, CATEGORY],
    [{ name: 'Rex', categoryId: '+1' }, CATEGORY],
    [{ name: 'Rex', categoryId: '9223372036854775808' }, CATEGORY],
    [{ name: 'Rex', categoryId: '1', status: 'lost' }, STATUS],
  ])('refuses %o', (fields, problem) => {
    const result = toNewPet(fields, 'csv');
    expect(typeof result).toBe('string');
    expect(result).toContain(problem);
  });
});
