import { palette } from '../../src/output/color.js';
import { renderRows, type Column } from '../../src/output/render.js';

// A profile list as `pets profile list` has it (issue 42): long names, a long base URL, and
// a column empty in every row.

interface Row {
  name: string;
  url: string;
  store: string;
}

export const NAMES = ['production-eu-west', 'staging-2', 'sandbox'];

const COLUMNS: readonly Column<Row>[] = [
  { title: 'NAME', text: (row) => row.name, whole: true },
  { title: 'BASE URL', text: (row) => row.url },
  { title: 'KEY', text: () => '****7d15' },
  { title: 'RATE STORE', text: (row) => row.store },
];

/** The table at `width` columns, as lines. */
export async function profileTable(width: number): Promise<string[]> {
  const rows = NAMES.map((name) => ({
    name,
    url: `https://${name}.api.example.com/v1`,
    store: '',
  }));
  const text = await renderRows(COLUMNS, rows, 'table', await palette(false), width);
  return text.trimEnd().split('\n');
}
