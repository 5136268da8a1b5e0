import type { Pet, PetStatus } from '../api/contract.js';
import type { Palette } from './color.js';
import type { OutputMode } from './mode.js';
import { escapeForTerminal } from './terminal-text.js';

/** A column of a table or TSV: its title, its plain text, and optionally how a terminal colours it. */
export interface Column<T> {
  title: string;
  text(row: T): string;
  color?(row: T, text: string, colors: Palette): string;
}

/**
 * Rows as a table (terminal) or tab-separated lines with a header (pipe). Cell text is
 * escaped. Async because cli-table3 loads only for a table: scripts read TSV.
 */
export async function renderRows<T>(
  columns: readonly Column<T>[],
  rows: readonly T[],
  mode: Exclude<OutputMode, 'json'>,
  colors: Palette,
): Promise<string> {
  if (mode === 'tsv') {
    // escapeForTerminal turns tabs and newlines into \u0009 and \u000a, so a value can never
    // split a row or a column.
    const lines = [
      columns.map((column) => column.title),
      ...rows.map((row) => columns.map((column) => escapeForTerminal(column.text(row)))),
    ];
    return `${lines.map((cells) => cells.join('\t')).join('\n')}\n`;
  }
  const { Table } = await import('./table.js');
  // cli-table3 colours headers even in a pipe unless its style is emptied; colour is ours.
  const table = new Table({
    head: columns.map((column) => colors.bold(column.title)),
    style: { head: [], border: [] },
    // No rule between rows: a long list should fill the screen with pets, not lines.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of rows) {
    table.push(
      columns.map((column) => {
        const text = escapeForTerminal(column.text(row));
        return column.color ? column.color(row, text, colors) : text;
      }),
    );
  }
  return `${table.toString()}\n`;
}

/** Label and value pairs, one per line: aligned on a terminal, tab-separated in a pipe. */
export function renderFields(
  fields: ReadonlyArray<readonly [string, string]>,
  mode: Exclude<OutputMode, 'json'>,
  colors: Palette,
): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields
    .map(([label, value]) =>
      mode === 'tsv'
        ? `${label}\t${escapeForTerminal(value)}\n`
        : `${colors.bold(label.padEnd(width))}  ${escapeForTerminal(value)}\n`,
    )
    .join('');
}

const STATUS_COLORS: Record<PetStatus, (colors: Palette, text: string) => string> = {
  available: (colors, text) => colors.green(text),
  pending: (colors, text) => colors.yellow(text),
  sold: (colors, text) => colors.dim(text),
};

export const PET_COLUMNS: readonly Column<Pet>[] = [
  { title: 'ID', text: (pet) => String(pet.id) },
  { title: 'NAME', text: (pet) => pet.name },
  { title: 'CATEGORY', text: (pet) => String(pet.categoryId) },
  {
    title: 'STATUS',
    text: (pet) => pet.status ?? '',
    color: (pet, text, colors) => (pet.status ? STATUS_COLORS[pet.status](colors, text) : text),
  },
];

/** Pets as a table or TSV, and nothing for none. JSON is render-json.ts's. */
export async function renderPets(
  pets: readonly Pet[],
  mode: Exclude<OutputMode, 'json'>,
  colors: Palette,
): Promise<string> {
  if (pets.length === 0) return '';
  return renderRows(PET_COLUMNS, pets, mode, colors);
}
