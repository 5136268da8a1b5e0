import { describe, expect, it } from 'vitest';
import type { Pet } from '../../src/api/contract.js';
import { colorEnabled, palette } from '../../src/output/color.js';
import { chooseMode } from '../../src/output/mode.js';
import { renderFields, renderPets } from '../../src/output/render.js';
import { renderJson } from '../../src/output/render-json.js';
import { escapeForTerminal } from '../../src/core/terminal-text.js';

const plain = await palette(false);
const colored = await palette(true);
const pets: Pet[] = [
  { id: 9007199254740993n, name: 'Rex', categoryId: 3n, status: 'available' },
  { id: 2n, name: 'Tab\there\nnewline', categoryId: 9223372036854775807n },
];

describe('colorEnabled', () => {
  it.each([
    ['a terminal', true, {}, true, true],
    ['a pipe', false, {}, true, false],
    ['--no-color', true, {}, false, false],
    ['NO_COLOR=1', true, { NO_COLOR: '1' }, true, false],
    ['NO_COLOR empty (ignored per no-color.org)', true, { NO_COLOR: '' }, true, true],
    ['FORCE_COLOR=0', true, { FORCE_COLOR: '0' }, true, false],
    ['TERM=dumb', true, { TERM: 'dumb' }, true, false],
  ])('%s', (_case, isTTY, env, flag, expected) => {
    expect(colorEnabled(isTTY, env, flag)).toBe(expected);
  });
});

describe('palette', () => {
  it("is plain text when colour is off, and chalk's ANSI styles when on", () => {
    expect(plain.badge(' PROTECTED ')).toBe(' PROTECTED ');
    expect(plain.red('error:')).toBe('error:');
    expect(colored.badge(' PROTECTED ')).toBe(
      '\u001b[41m\u001b[37m\u001b[1m PROTECTED \u001b[22m\u001b[39m\u001b[49m',
    );
    expect(colored.red('error:')).toBe('\u001b[31merror:\u001b[39m');
  });
});

describe('chooseMode', () => {
  it.each([
    [false, true, 'table'],
    [false, false, 'tsv'],
    [true, true, 'json'],
    [true, false, 'json'],
  ] as const)('json=%s tty=%s → %s', (json, tty, mode) => {
    expect(chooseMode(json, tty)).toBe(mode);
  });
});

describe('escapeForTerminal', () => {
  it.each([
    ['\u001b[31mred', '\\u001b[31mred'],
    ['\u009b31m', '\\u009b31m'],
    ['a\rb\bc\u0007d\u0000e\u007f', 'a\\u000db\\u0008c\\u0007d\\u0000e\\u007f'],
    ['\u202eevil\u2066\u2069', '\\u202eevil\\u2066\\u2069'],
    ['日本語 🐶 café', '日本語 🐶 café'],
  ])('%j → %j', (given, expected) => {
    expect(escapeForTerminal(given)).toBe(expected);
  });
});

describe('renderPets', () => {
  it('writes TSV with a header, escaping tabs and newlines inside fields', async () => {
    expect(await renderPets(pets, 'tsv', plain)).toBe(
      'ID\tNAME\tCATEGORY\tSTATUS\n' +
        '9007199254740993\tRex\t3\tavailable\n' +
        '2\tTab\\u0009here\\u000anewline\t9223372036854775807\t\n',
    );
  });

  it('draws a table without ANSI codes when colour is off', async () => {
    const table = await renderPets(pets, 'table', plain);
    expect(table).toContain('9007199254740993');
    expect(table).toMatch(/│ ID\s+│ NAME/);
    expect(table).not.toContain('\u001b');
  });

  it('colours the status and headers when colour is on', async () => {
    const table = await renderPets(pets, 'table', colored);
    expect(table).toContain('\u001b[32mavailable\u001b[39m');
    expect(table).toContain('\u001b[1mID\u001b[22m');
  });

  it('keeps columns aligned with wide CJK and emoji names', async () => {
    const wide: Pet[] = [
      { id: 1n, name: '柴犬', categoryId: 1n, status: 'sold' },
      { id: 2n, name: '🐶🐱', categoryId: 1n, status: 'sold' },
      { id: 3n, name: 'abcd', categoryId: 1n, status: 'sold' },
    ];
    const rows = (await renderPets(wide, 'table', plain))
      .split('\n')
      .filter((l) => l.includes('sold'));
    const bars = rows.map((row) => {
      const widths = [...row].map((ch) => (/[\u3000-\u9fff\u{1f300}-\u{1faff}]/u.test(ch) ? 2 : 1));
      const positions: number[] = [];
      let column = 0;
      [...row].forEach((ch, i) => {
        if (ch === '│') positions.push(column);
        column += widths[i] ?? 1;
      });
      return positions;
    });
    expect(bars[0]).toEqual(bars[1]);
    expect(bars[1]).toEqual(bars[2]);
  });

  it('prints exact JSON, pretty on a terminal and one line in a pipe', async () => {
    expect(renderJson(pets.slice(0, 1), false)).toBe(
      '[{"id":9007199254740993,"name":"Rex","categoryId":3,"status":"available"}]\n',
    );
    expect(renderJson({ a: 1 }, true)).toBe('{\n  "a": 1\n}\n');
  });

  it('prints nothing for an empty list, except [] in JSON', async () => {
    expect(await renderPets([], 'table', plain)).toBe('');
    expect(await renderPets([], 'tsv', plain)).toBe('');
    expect(renderJson([], false)).toBe('[]\n');
  });
});

describe('renderFields', () => {
  it('aligns labels on a terminal and tabs them in a pipe', () => {
    const fields = [
      ['profile', 'staging'],
      ['key', '****abcd'],
    ] as const;
    expect(renderFields(fields, 'table', plain)).toBe('profile  staging\nkey      ****abcd\n');
    expect(renderFields(fields, 'tsv', plain)).toBe('profile\tstaging\nkey\t****abcd\n');
  });
});
