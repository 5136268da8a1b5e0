import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { BIN } from '../helpers/run-binary.js';
import { expectOneLiveFrame, hasTmux, petsInTmux, type TmuxRun } from '../helpers/terminal.js';

if (!hasTmux) console.warn('tmux is not installed: the countdown tests in tmux are skipped');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// A frame of the countdown, whole or as narrowed to fit.
const FRAME = /(sending|retrying)? ?in \d+ s/;

/**
 * A `pets list` that waits, in a tmux pane `columns` wide: another machine (a config folder of
 * its own, so nothing shared) has just spent the window's one request, so the list is refused
 * (429) and counts its retry down: "rate limited, retrying in 4 s, attempt 2/5", the longest
 * countdown there is; 60 rows of earlier output above it, as in a terminal in use.
 * `during(tmux)` runs once the countdown shows. Returns the whole scrollback once pets has
 * ended. The tests run side by side, each waiting out its window: so each run removes its own
 * sandbox and folder, as the shared helpers' per-test hooks cannot tell concurrent tests apart.
 */
async function waitInTmux(
  columns: number,
  during: (tmux: (...args: string[]) => string) => Promise<void> = async () => {},
): Promise<TmuxRun> {
  const sandbox = await startSandbox({ plan: 'free', rpm: 1, windowSeconds: 4 });
  const dir = mkdtempSync(join(tmpdir(), 'pets-countdown-'));
  const env = (config: string) => ({
    PETS_CONFIG_DIR: join(dir, config),
    PETS_BASE_URL: sandbox.baseUrl,
    PETS_API_KEY: sandbox.key,
  });
  try {
    // Asynchronously: the sandbox answers from this process's event loop.
    await promisify(execFile)(process.execPath, [BIN, 'list', '--limit', '1', '-q'], {
      env: { PATH: process.env.PATH, ...env('other') },
    });
    const run = await petsInTmux({
      dir,
      columns,
      args: ['list', '--limit', '1'],
      env: { ...env('config'), PETS_PROFILE: 'staging' },
      earlierRows: 60,
      during: async (pane) => {
        await pane.until(/in \d+ s/);
        // During the wait: one frame, on one row, narrower than the terminal.
        expectOneLiveFrame(pane, FRAME, columns);
        await during(pane.tmux);
      },
    });
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toHaveLength(1);
    return run;
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe
  .skipIf(!hasTmux)
  .concurrent("a short command's countdown in tmux, across the whole scrollback", () => {
    it('at 40, 60, 80 and 100 columns: fitted, never wrapped, and erased', async () => {
      const widths = [40, 60, 80, 100];
      const runs = await Promise.all(widths.map((columns) => waitInTmux(columns)));
      for (const [i, { rows, lines, code }] of runs.entries()) {
        const columns = widths[i]!;
        const scrollback = `${columns} columns:\n${rows.join('\n')}`;
        expect(code, scrollback).toBe(0);
        // The list's answer, after the wait.
        expect(scrollback).toMatch(/No pets found\./);
        // Every frame was erased: none is left, whole or in part.
        expect(
          rows.filter((row) => FRAME.test(row)),
          scrollback,
        ).toEqual([]);
        expect(scrollback).not.toMatch(/rate limited|attempt \d/);
        // The countdown never wrapped; what pets wrote itself did only where it is prose (the
        // hint below the table): the frames are the lines that must not.
        const wrapped = lines.filter((line) => line.length >= columns);
        expect(
          wrapped.filter((line) => FRAME.test(line)),
          wrapped.join('\n'),
        ).toEqual([]);
      }
    }, 60_000);

    it('across resizes during the wait, 100 to 25 to 70 columns: redrawn at once, none left behind', async () => {
      let narrow = '';
      const { rows, code } = await waitInTmux(100, async (tmux) => {
        tmux('resize-window', '-t', 'pets', '-x', '25', '-y', '40');
        await sleep(300);
        // Redrawn at the new width before its next second.
        narrow = tmux('capture-pane', '-p', '-t', 'pets');
        tmux('resize-window', '-t', 'pets', '-x', '70', '-y', '40');
      });
      const live = narrow.split('\n').filter((row) => FRAME.test(row));
      expect(live, narrow).toHaveLength(1);
      expect(live[0]!.length, narrow).toBeLessThan(25);
      const scrollback = rows.join('\n');
      expect(code, scrollback).toBe(0);
      expect(
        rows.filter((row) => FRAME.test(row)),
        scrollback,
      ).toEqual([]);
      expect(scrollback).not.toMatch(/rate limited|attempt \d/);
    }, 60_000);
  });
