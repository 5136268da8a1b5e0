import { describe, expect, it } from 'vitest';
import { NAMES, profileTable } from './table-fit.js';

describe('a table narrower than its text (issue 42)', () => {
  it('at 60 columns drops the empty column first and keeps every name whole', async () => {
    const lines = await profileTable(60);
    expect(lines.every((line) => line.length <= 60)).toBe(true);
    expect(lines.join('\n')).not.toContain('RATE STORE');
    for (const name of NAMES) expect(lines.some((line) => line.includes(` ${name} `))).toBe(true);
  });

  it('keeps an empty column where the table fits', async () => {
    expect((await profileTable(200)).join('\n')).toContain('RATE STORE');
  });
});
