import type { Pet } from '../api/contract.js';
import type { Palette } from './color.js';
import type { OutputMode } from './mode.js';
import { escapeForTerminal } from '../core/terminal-text.js';

/** A column of a table or TSV: its title, its plain text, and optionally how a terminal colours it. */
export interface Column<T> {
  title: string;
  text(row: T): string;
  color?(row: T, text: string, colors: Palette): string;
  /**
   * On a terminal narrower than the table, a long value wraps onto more lines instead of
   * being cut short with …: for reasons, where the whole text is the point.
   */
  wraps?: boolean;
  /** A value a person types back (a profile's name): cut short only when nothing else can give. */
  whole?: boolean;
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
  /**
   * A table's width at most (the terminal's): the widest cells are cut short with …, or
   * wrap in the columns that say so.
   */
  maxWidth?: number,
): Promise<string> {
  // In TSV, escapeForTerminal turns tabs and newlines into \u0009 and \u000a, so a value can
  // never split a row or a column.
  const cells = rows.map((row) => columns.map((column) => escapeForTerminal(column.text(row))));
  if (mode === 'tsv') {
    const lines = [columns.map((column) => column.title), ...cells];
    return `${lines.map((line) => line.join('\t')).join('\n')}\n`;
  }
  // The columns a terminal gives each cell's text: East Asian wide characters and most emoji
  // take two, combining marks none. cli-table3 measures with the same function (the build
  // gives it this string-width), and cuts a cell longer than its column short with ….
  const { Table, stringWidth } = await import('./table.js');
  const naturalOf = (i: number) =>
    Math.max(stringWidth(columns[i]!.title), ...cells.map((r) => stringWidth(r[i]!)));
  // A column with no value in any row gives way first, before any value is cut short.
  const fits =
    maxWidth === undefined || tableWidth(columns.map((_, i) => naturalOf(i))) <= maxWidth;
  const shown = columns.flatMap((_, i) =>
    fits || rows.length === 0 || cells.some((r) => r[i] !== '') ? [i] : [],
  );
  const titles = shown.map((i) => stringWidth(columns[i]!.title));
  const natural = shown.map(naturalOf);
  const kept = shown.map((i, at) => (columns[i]!.whole ? natural[at]! : titles[at]!));
  const widths = fitWidths(fitWidths(natural, kept, maxWidth), titles, maxWidth);
  // cli-table3 colours headers even in a pipe unless its style is emptied; colour is ours.
  const table = new Table({
    head: shown.map((i) => colors.bold(columns[i]!.title)),
    style: { head: [], border: [] },
    // No rule between rows: a long list should fill the screen with pets, not lines.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    // With its padding, one column each side.
    colWidths: widths.map((width) => width + 2),
  });
  for (const [r, row] of rows.entries()) {
    table.push(
      shown.map((i) => {
        const column = columns[i]!;
        const text = cells[r]![i]!;
        const content = column.color ? column.color(row, text, colors) : text;
        return column.wraps ? { content, wordWrap: true } : content;
      }),
    );
  }
  return `${table.toString()}\n`;
}

/** A table's width with cli-table3's borders and padding: 3 per column, 1 more. */
function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, w) => sum + w + 3, 1);
}

/** Column widths whose tableWidth fits `maxWidth`: the widest gives way first, never below its minimum. */
export function fitWidths(
  natural: readonly number[],
  minimum: readonly number[],
  maxWidth: number | undefined,
): number[] {
  const widths = [...natural];
  if (maxWidth === undefined) return widths;
  let excess = tableWidth(widths) - maxWidth;
  while (excess > 0) {
    let widest = -1;
    for (const [i, w] of widths.entries()) {
      if (w > minimum[i]! && (widest === -1 || w > widths[widest]!)) widest = i;
    }
    if (widest === -1) break;
    widths[widest]!--;
    excess--;
  }
  return widths;
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

const STATUS_COLORS = { available: 'green', pending: 'yellow', sold: 'dim' } as const;

export const PET_COLUMNS: readonly Column<Pet>[] = [
  { title: 'ID', text: (pet) => String(pet.id) },
  { title: 'NAME', text: (pet) => pet.name },
  { title: 'CATEGORY', text: (pet) => String(pet.categoryId) },
  {
    title: 'STATUS',
    text: (pet) => pet.status ?? '',
    color: (pet, text, colors) => (pet.status ? colors[STATUS_COLORS[pet.status]](text) : text),
  },
];

/** Pets as a table or TSV, and nothing for none. JSON is render-json.ts's. */
export async function renderPets(
  pets: readonly Pet[],
  mode: Exclude<OutputMode, 'json'>,
  colors: Palette,
  maxWidth?: number,
): Promise<string> {
  if (pets.length === 0) return '';
  return renderRows(PET_COLUMNS, pets, mode, colors, maxWidth);
}
