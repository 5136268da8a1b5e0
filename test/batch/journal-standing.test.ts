import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalStanding, openJournal, type JournalTarget } from '../../src/batch/journal.js';
import { tempDir } from '../helpers/config-dir.js';

// What the registry of journals asks of each journal it lists, at every run: read from the
// journal's start only.

const target: JournalTarget = {
  origin: 'https://api.example.test',
  key: 'fingerprint-1',
  profile: 'staging',
  baseUrl: 'https://api.example.test',
  keyHint: '****',
};

function journalWith(entries: number): string {
  const path = join(tempDir('pets-standing-'), 'j');
  const journal = openJournal(path, target);
  for (let i = 0; i < entries; i++) journal.intend(`abc.${i}`, i + 1);
  journal.close();
  return path;
}

describe('journalStanding', () => {
  it('a journal of the target with an entry stands for records', () => {
    expect(journalStanding(journalWith(1), target)).toBe('records');
  });

  it('one with its header alone, or an empty file, holds none', () => {
    expect(journalStanding(journalWith(0), target)).toBe('none');
    const empty = join(tempDir('pets-standing-'), 'empty');
    writeFileSync(empty, '');
    expect(journalStanding(empty, target)).toBe('none');
  });

  it('one whose first entry comes after more blank padding than it reads is read through', () => {
    const path = journalWith(0);
    appendFileSync(path, `${' '.repeat(4095)}\n`.repeat(20));
    expect(journalStanding(path, target)).toBe('none');
    appendFileSync(path, '{"i":"abc.0","line":1}\n');
    expect(journalStanding(path, target)).toBe('records');
  });

  it("what is gone, not a journal, or another target's is other", () => {
    const dir = tempDir('pets-standing-');
    expect(journalStanding(join(dir, 'gone'), target)).toBe('other');
    writeFileSync(join(dir, 'csv'), 'name,categoryId\nRex,3\n');
    expect(journalStanding(join(dir, 'csv'), target)).toBe('other');
    expect(journalStanding(journalWith(1), { ...target, key: 'fingerprint-2' })).toBe('other');
  });
});
