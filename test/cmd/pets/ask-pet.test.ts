import { describe, expect, it } from 'vitest';
import { askPet } from '../../../src/cmd/pets/add.js';
import { scriptedPrompter } from '../../helpers/prompter.js';

describe('askPet', () => {
  it('asks name, category id and status in that order, each checked as its flag', async () => {
    const person = scriptedPrompter(['  ', 'Rex', 'three', '9223372036854775808', '3', 'pending']);
    expect(await askPet(person, {})).toEqual({ name: 'Rex', categoryId: 3n, status: 'pending' });
    expect(person.asked).toEqual(['Name', 'Category id', 'Status']);
    expect(person.refusals).toEqual([
      'It must not be empty.',
      expect.stringContaining('It must be an integer within int64'),
      expect.stringContaining('It must be an integer within int64'),
    ]);
  });

  it('asks only what is missing; the default status, none, leaves it out', async () => {
    const person = scriptedPrompter(['12', '']);
    expect(await askPet(person, { name: 'Tom' })).toEqual({ name: 'Tom', categoryId: 12n });
    expect(person.asked).toEqual(['Category id', 'Status']);
  });

  it('asks nothing when name and category id are given', async () => {
    const person = scriptedPrompter([]);
    expect(await askPet(person, { name: 'A', categoryId: 1n })).toMatchObject({ name: 'A' });
    expect(person.asked).toEqual([]);
  });
});
