import { describe, expect, it } from 'vitest';
import { askPet } from '../../../src/cmd/pets/add.js';
import type { ChoiceQuestion, Prompter, TextQuestion } from '../../../src/terminal/prompt.js';

/** A person who answers each question in turn, trying each answer until one is taken. */
function person(answers: Record<string, string[]>) {
  const asked: string[] = [];
  const refusals: string[] = [];
  const prompts: Prompter = {
    async text(question: TextQuestion) {
      asked.push(question.message);
      for (const answer of answers[question.message] ?? []) {
        const why = question.check?.(answer);
        if (why === undefined) return answer;
        refusals.push(why);
      }
      throw new Error(`no acceptable answer to ${question.message}`);
    },
    async choice<T extends string>(question: ChoiceQuestion<T>) {
      asked.push(question.message);
      const answer = answers[question.message]?.[0];
      return (answer ?? question.default) as T;
    },
  };
  return { prompts, asked, refusals };
}

describe('askPet', () => {
  it('asks name, category id and status in that order, each checked as its flag', async () => {
    const { prompts, asked, refusals } = person({
      Name: ['  ', 'Rex'],
      'Category id': ['three', '9223372036854775808', '3'],
      Status: ['pending'],
    });
    expect(await askPet(prompts, {})).toEqual({ name: 'Rex', categoryId: 3n, status: 'pending' });
    expect(asked).toEqual(['Name', 'Category id', 'Status']);
    expect(refusals).toEqual([
      'It must not be empty.',
      expect.stringContaining('It must be an integer within int64'),
      expect.stringContaining('It must be an integer within int64'),
    ]);
  });

  it('asks only what is missing; the default status, none, leaves it out', async () => {
    const { prompts, asked } = person({ 'Category id': ['12'] });
    expect(await askPet(prompts, { name: 'Tom' })).toEqual({ name: 'Tom', categoryId: 12n });
    expect(asked).toEqual(['Category id', 'Status']);
  });

  it('asks nothing when name and category id are given', async () => {
    const { prompts, asked } = person({});
    expect(await askPet(prompts, { name: 'A', categoryId: 1n })).toMatchObject({ name: 'A' });
    expect(asked).toEqual([]);
  });
});
