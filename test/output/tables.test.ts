import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { fitWidths } from '../../src/output/render.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { runMain } from '../helpers/run-main.js';
import { testSandbox } from '../helpers/sandbox.js';

const LONG_NAME = `Bartholomew ${'the very long named '.repeat(8)}cat`.slice(0, 160);

let sandbox: RunningSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ plan: 'unlimited', seed: 24 });
  env = apiEnv(sandbox, { NO_COLOR: '1' });
  const added = await runMain(['add', '--name', LONG_NAME, '--category-id', '7', '-q'], env);
  expect(added.code).toBe(0);
});
afterAll(() => sandbox.close());

const columns = (text: string) => text.split('\n').map((line) => [...line].length);

describe('a long name in a table', () => {
  it.each([60, 80, 120])('fits a terminal %i columns wide, cut short with …', async (width) => {
    const result = await runMain(['list', '--limit', '100'], env, {
      stdoutIsTTY: true,
      stdoutColumns: width,
    });
    expect(result.code).toBe(0);
    expect(Math.max(...columns(result.stdout))).toBeLessThanOrEqual(width);
    expect(result.stdout).toContain('…');
    expect(result.stdout).not.toContain(LONG_NAME);
    expect(result.stdout).toMatch(/│ Bartholomew the very/);
  });

  it('is whole in a pipe and in JSON', async () => {
    const tsv = await runMain(['list', '--limit', '100'], env);
    expect(tsv.stdout).toContain(`\t${LONG_NAME}\t`);
    const json = await runMain(['list', '--limit', '100', '--json'], env);
    expect(JSON.parse(json.stdout).map((p: { name: string }) => p.name)).toContain(LONG_NAME);
  });

  it('leaves a table that fits as it is', async () => {
    const result = await runMain(['list', '--limit', '3'], env, {
      stdoutIsTTY: true,
      stdoutColumns: 200,
    });
    expect(result.stdout).not.toContain('…');
  });
});

describe('names a terminal shows wider or narrower than their characters', () => {
  // 60 CJK characters take 120 columns; emoji two each; a combining accent none.
  const WIDE = [
    '猫'.repeat(60),
    `${'🐕'.repeat(30)} and 🐈‍⬛ with 🇯🇵`,
    `Ame\u0301lie ${'e\u0301'.repeat(70)}`,
  ];
  let wide: RunningSandbox;
  let wideEnv: Record<string, string>;
  beforeAll(async () => {
    wide = await startSandbox({ plan: 'unlimited', seed: 25 });
    wideEnv = apiEnv(wide, { NO_COLOR: '1' });
    for (const name of WIDE) {
      const added = await runMain(['add', '--name', name, '--category-id', '7', '-q'], wideEnv);
      expect(added.code).toBe(0);
    }
  });
  afterAll(() => wide.close());

  it.each([80, 60])(
    'fit a terminal %i columns wide, every row as wide as the others',
    async (width) => {
      const result = await runMain(['list', '--limit', '100'], wideEnv, {
        stdoutIsTTY: true,
        stdoutColumns: width,
      });
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(WIDE.length);
      const widths = new Set(lines.map((line) => stringWidth(line)));
      expect([...widths]).toHaveLength(1);
      expect([...widths][0]).toBeLessThanOrEqual(width);
      expect(result.stdout).toContain('│ 猫猫猫');
      expect(result.stdout).toContain('…');
    },
  );
});

describe('the built table file', () => {
  it('lays cells out with the same width function pets measures with', () => {
    // U+20DD, a combining mark: no column for string-width 9, one for cli-table3's own 4.
    const built = createRequire(import.meta.url)('../../dist/vendor/cli-table3.js') as {
      Table: typeof import('cli-table3');
      stringWidth: (text: string) => number;
    };
    expect(built.stringWidth('a\u20ddb')).toBe(2);
    const table = new built.Table({ head: ['X'], style: { head: [], border: [] } });
    table.push(['a\u20ddb']);
    const lines = table.toString().split('\n');
    expect(new Set(lines.map((line) => built.stringWidth(line)))).toEqual(new Set([6]));
  });
});

describe('fitWidths', () => {
  it('takes from the widest column first, never below the minimum', () => {
    // 4 columns: borders and padding take 13.
    expect(fitWidths([5, 160, 8, 9], [2, 4, 8, 6], 60)).toEqual([5, 25, 8, 9]);
    expect(fitWidths([5, 40, 30, 9], [2, 4, 8, 6], 60)).toEqual([5, 16, 17, 9]);
    expect(fitWidths([5, 160], [5, 10], 10)).toEqual([5, 10]);
    expect(fitWidths([5, 160], [5, 10], undefined)).toEqual([5, 160]);
  });
});

describe('a full page of pets', () => {
  const hint = 'Showing 20, a full page: more may exist. --limit goes up to 100.';

  it('gets a dim hint on a terminal', async () => {
    const result = await runMain(['list'], apiEnv(sandbox), {
      stderrIsTTY: true,
      stdoutIsTTY: true,
    });
    expect(result.stderr).toContain(`\u001b[2m${hint}\u001b[22m`);
    const piped = await runMain(['list'], apiEnv(sandbox), { stderrIsTTY: true });
    expect(piped.stderr).not.toContain('Showing');
  });

  it('gets none in a pipe, with -q, with --json, or when the page is not full', async () => {
    expect((await runMain(['list'], env)).stderr).not.toContain('Showing');
    expect(
      (await runMain(['list', '-q'], env, { stderrIsTTY: true, stdoutIsTTY: true })).stderr,
    ).toBe('');
    const json = await runMain(['list', '--json'], env, { stderrIsTTY: true, stdoutIsTTY: true });
    expect(json.stderr).not.toContain('Showing');
    const all = await runMain(['list', '--limit', '50'], env, {
      stderrIsTTY: true,
      stdoutIsTTY: true,
    });
    expect(all.stderr).not.toContain('Showing');
  });

  it('at --limit 100 says that is the most one request returns', async () => {
    const big = await testSandbox({ plan: 'unlimited', seed: 100 });
    const result = await runMain(['list', '--limit', '100'], apiEnv(big, { NO_COLOR: '1' }), {
      stderrIsTTY: true,
      stdoutIsTTY: true,
    });
    expect(result.stderr).toContain('Showing 100, the most one request returns');
  });
});

describe('choices in any case', () => {
  it('accepts --status Available and sends available', async () => {
    const result = await runMain(['list', '--status', 'Available', '--json'], env);
    expect(result.code).toBe(0);
    const pets = JSON.parse(result.stdout) as Array<{ status?: string }>;
    expect(pets.length).toBeGreaterThan(0);
    expect(pets.every((pet) => pet.status === 'available')).toBe(true);
  });

  it('refuses a status that is none of them, listing the values', async () => {
    const result = await runMain(['list', '--status', 'lost'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('It must be one of available, pending, sold.');
  });

  it('accepts --format CSV and --plan PRO', async () => {
    const format = await runMain(
      [
        'add',
        '--file',
        '-',
        '--format',
        'CSV',
        '--journal',
        join(tempDir('pets-tables-'), 'never-written'),
      ],
      env,
      { stdin: '' },
    );
    expect(format.stderr).not.toContain('--format');
    // A busy port stops the sandbox right after its options were accepted.
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((busy.address() as { port: number }).port);
      const plan = await runMain(['sandbox', '--plan', 'PRO', '--port', port], env);
      expect(plan.stderr).toContain(`port ${port} is in use`);
    } finally {
      busy.close();
    }
  });
});

describe("a batch's table of invalid records on a narrow terminal", () => {
  it.each([40, 60, 80])(
    'at %i columns wraps each reason onto more lines, whole, instead of cutting it',
    async (width) => {
      const input = join(tempDir('pets-reasons-'), 'bad.ndjson');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        input,
        [
          JSON.stringify({ name: 'Fine', categoryId: 1 }),
          JSON.stringify({ name: 'Bad', categoryId: 'seven' }),
        ].join('\n'),
      );
      const result = await runMain(['add', '--file', input, '--dry-run'], env, {
        stdoutIsTTY: true,
        stdoutColumns: width,
      });
      expect(result.code).toBe(1);
      const table = result.stdout.slice(result.stdout.indexOf('┌')).trimEnd();
      expect(Math.max(...columns(table))).toBeLessThanOrEqual(width);
      expect(table).not.toContain('…');
      // The reason, read back across its rows, is the whole reason a pipe shows.
      const tsv = await runMain(['add', '--file', input, '--dry-run'], env);
      const reason = /^2\t(.+)$/m.exec(tsv.stdout)![1]!;
      const cells = table
        .split('\n')
        .map((row) => row.split('│')[2]?.trim())
        .filter((cell): cell is string => cell !== undefined && cell !== '' && cell !== 'PROBLEM');
      expect(cells.join(' ')).toBe(reason);
      expect(cells.length).toBeGreaterThan(width < 80 ? 1 : 0);
    },
  );
});
