import { execFile } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { BIN } from '../helpers/run-binary.js';
import { testSandbox } from '../helpers/sandbox.js';
import { inTrials } from '../helpers/trials.js';
import {
  expectOneLiveFrame,
  hasScript,
  hasTmux,
  onTerminal,
  petsInTmux,
  type TmuxRun,
} from '../helpers/terminal.js';

// On a real pseudo-terminal (util-linux `script`), stderr is a TTY: the progress line is drawn
// as a person sees it.
describe.skipIf(!hasScript)('a batch on a terminal', () => {
  it('starts with its plan, and counts the progress line down through a wait', async () => {
    // 3 creates per 3 s window: 6 records wait once, about 3 s, on the real clock.
    const sandbox = await testSandbox({ plan: 'free', rpm: 3, windowSeconds: 3 });
    const dir = tempDir('pets-progress-');
    const input = join(dir, 'six.ndjson');
    writeFileSync(
      input,
      Array.from({ length: 6 }, (_, i) => JSON.stringify({ name: `T${i}`, categoryId: 1 })).join(
        '\n',
      ),
    );
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const term = onTerminal(['add', '--file', input], env);
    const code = await term.exited;
    const screen = term.raw();
    expect(code).toBe(0);
    expect(sandbox.pets()).toHaveLength(6);
    expect(screen).toMatch(/6 to send · quota not known yet/);
    // The frames of the line, as drawn: the countdown falls a second at a time.
    const counts = screen
      .split('\r')
      .map((frame) => /sending in (\d+) s/.exec(frame)?.[1])
      .filter((count): count is string => count !== undefined)
      .map(Number);
    const distinct = counts.filter((count, i) => i === 0 || count !== counts[i - 1]);
    // Redrawn as the wait runs, falling to its last second (a loaded machine may wake late).
    expect(distinct.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < distinct.length; i++) expect(distinct[i]).toBeLessThan(distinct[i - 1]!);
    expect(distinct.at(-1)).toBe(1);
    expect(screen).toMatch(/created 6, failed 0, skipped 0, unknown 0/);
  }, 20_000);
});

if (!hasTmux) console.warn('tmux is not installed: the progress line tests in tmux are skipped');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FRAME = /^\d+\/\d+( |$)|^\d+ done( |$)/;

/**
 * A resumed import with waits, in a tmux pane `columns` wide: `during(tmux)` runs once the
 * line counts a wait down. Returns the whole scrollback, row by row as shown and with wrapped
 * rows joined, once pets has ended.
 */
async function importInTmux(
  columns: number,
  during: (tmux: (...args: string[]) => string) => Promise<void> = async () => {},
  /** Rows of earlier output above pets, as in a terminal in use. */
  earlierRows = 0,
): Promise<TmuxRun> {
  // 5 creates per 2 s window: 12 records, 4 created by an earlier run whose window the resume
  // starts in (1 left), wait twice or more.
  const sandbox = await testSandbox({ plan: 'free', rpm: 5, windowSeconds: 2 });
  const dir = tempDir('pets-tmux-');
  const input = join(dir, 'pets.ndjson');
  const record = (i: number) => `${JSON.stringify({ name: `Tmux pet ${i}`, categoryId: 1 })}\n`;
  writeFileSync(input, [0, 1, 2, 3].map(record).join(''));
  const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
  // Asynchronously: the sandbox answers from this process's event loop.
  await promisify(execFile)(process.execPath, [BIN, 'add', '--file', input, '-q'], {
    env: { PATH: process.env.PATH, ...env },
  });
  appendFileSync(input, Array.from({ length: 8 }, (_, i) => record(i + 4)).join(''));
  const run = await petsInTmux({
    dir,
    columns,
    args: ['add', '--file', input],
    env,
    earlierRows,
    during: async (pane) => {
      await pane.until(/sending in \d+ s|in \d+ s/);
      // During a wait: one frame, on one row, narrower than the terminal.
      expectOneLiveFrame(pane, FRAME, columns);
      await during(pane.tmux);
    },
  });
  expect(sandbox.pets()).toHaveLength(12);
  return run;
}

describe.skipIf(!hasTmux)('the progress line in tmux, across the whole scrollback', () => {
  // One test for the four widths, run side by side: a test's temporary folders (and the tmux
  // sockets in them) go when it ends, so concurrent tests would remove each other's.
  it('at 40, 60, 80 and 100 columns: no stacked frame, no stale countdown, no frame as wide as the terminal', async () => {
    const runs = await Promise.all([40, 60, 80, 100].map((columns) => importInTmux(columns)));
    for (const [i, { rows, lines, code }] of runs.entries()) {
      const columns = [40, 60, 80, 100][i]!;
      const scrollback = `${columns} columns:\n${rows.join('\n')}`;
      expect(code, scrollback).toBe(0);
      expect(lines.join('\n')).toMatch(/created 8, failed 0, skipped 4, unknown 0/);
      // Every frame was erased: none is left above the summary, whole or in part.
      expect(
        rows.filter((row) => FRAME.test(row)),
        scrollback,
      ).toEqual([]);
      expect(scrollback).not.toMatch(/sending in|ETA /);
      // The progress line never wrapped; what pets wrote itself did only where it is prose
      // (the summary names the journal's path): the frames are the lines that must not.
      const wrapped = lines.filter((line) => line.length >= columns);
      expect(
        wrapped.every((line) => !FRAME.test(line)),
        wrapped.join('\n'),
      ).toBe(true);
    }
  }, 60_000);

  // tmux rewraps the line under the cursor when a pane narrows, keeping the cursor's row: on a
  // pane not yet full, the rows it pushes up go to the history, where no program can erase
  // them. On a terminal in use (full), the wrapped rows stay on the screen and are erased.
  // npm test keeps the countdown's resize (countdown-terminal.test.ts); the trials try this one.
  it.runIf(inTrials)(
    'across resizes during a wait, 100 to 45 to 70 columns: no frame is left behind',
    async () => {
      const { rows, code } = await importInTmux(
        100,
        async (tmux) => {
          tmux('resize-window', '-t', 'pets', '-x', '45', '-y', '40');
          await sleep(700);
          tmux('resize-window', '-t', 'pets', '-x', '70', '-y', '40');
        },
        60,
      );
      const scrollback = rows.join('\n');
      expect(code, scrollback).toBe(0);
      expect(
        rows.filter((row) => FRAME.test(row)),
        scrollback,
      ).toEqual([]);
      expect(scrollback).not.toMatch(/sending in|ETA |\d+% ·/);
    },
    60_000,
  );
});
