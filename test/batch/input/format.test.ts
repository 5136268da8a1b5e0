import { describe, expect, it } from 'vitest';
import { chooseFormat } from '../../../src/batch/input/index.js';
import { UsageError } from '../../../src/core/errors.js';

describe('chooseFormat', () => {
  it.each([
    ['pets.ndjson', undefined, 'ndjson'],
    ['pets.jsonl', undefined, 'ndjson'],
    ['pets.json', undefined, 'json'],
    ['pets.csv', undefined, 'csv'],
    ['PETS.CSV', undefined, 'csv'],
    ['dir.csv/pets.JSONL', undefined, 'ndjson'],
    ['-', undefined, 'ndjson'],
    ['pets.csv', 'json', 'json'],
    ['pets.txt', 'csv', 'csv'],
    ['-', 'csv', 'csv'],
    ['-', 'json', 'json'],
    ['pets', 'NDJSON', 'ndjson'],
  ])('%s with --format %s reads as %s', (path, explicit, expected) => {
    expect(chooseFormat(path, explicit)).toBe(expected);
  });

  it.each([
    ['pets.txt', undefined],
    ['pets', undefined],
    ['dir.csv/pets', undefined],
    ['pets.json', 'yaml'],
    ['pets.json', ''],
  ])('refuses %s with --format %s, naming the allowed formats', (path, explicit) => {
    const attempt = () => chooseFormat(path, explicit);
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(/ndjson.*json.*csv/);
  });

  it('exits with 2 on an unknown format', () => {
    try {
      chooseFormat('pets.xml', undefined);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
    }
  });
});
