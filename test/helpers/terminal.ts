import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BIN } from './run-binary.js';

/** util-linux `script`: it gives pets a real pseudo-terminal, so raw mode, echo and Ctrl-C are real. */
export const hasScript = spawnSync('script', ['--version']).status === 0;

/** What a terminal shows, without colours and cursor movements. */
export function plainScreen(text: string): string {
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

export interface Terminal {
  /** Everything shown so far, plain. */
  screen(): string;
  /** Everything written to the terminal so far, escape sequences and all. */
  raw(): string;
  /** Waits (bounded) until the screen shows `expected`; fails with the screen otherwise. */
  waitFor(expected: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Types text as keys: `\r` is Enter, `\u0003` Ctrl-C, `\u001b[B` the down arrow. */
  type(keys: string): void;
  /** The exit code of pets (of the shell, with `afterwards`), once it ends. */
  exited: Promise<number | null>;
  /** The process id of pets, to signal it from outside as `kill` does. */
  pid(): number;
}

/** Keys, as a terminal sends them. */
export const KEYS = {
  enter: '\r',
  ctrlC: '\u0003',
  up: '\u001b[A',
  down: '\u001b[B',
  left: '\u001b[D',
  backspace: '\u007f',
};

/**
 * Runs the built pets with `args` on a pseudo-terminal, with only `env` (and PATH, TERM).
 * The shell execs pets, so that Ctrl-C reaches pets alone and the exit code is pets's own.
 * `redirect` is appended to the command line (`2>/dev/null`, say). With `afterwards`, the
 * shell runs it on the same terminal once pets has ended (`stty -a`), after a line
 * `pets exited N`.
 */
export function onTerminal(
  args: string[],
  env: Record<string, string>,
  redirect = '',
  afterwards?: string,
): Terminal {
  const pets = `"${process.execPath}" "${BIN}" ${shellWords(args)} ${redirect}`;
  const child = spawn(
    'script',
    [
      '-qefc',
      afterwards === undefined ? `exec ${pets}` : `${pets}; echo "pets exited $?"; ${afterwards}`,
      '/dev/null',
    ],
    { env: { PATH: process.env.PATH, TERM: 'xterm', ...env } },
  );
  let raw = '';
  // Keys typed as pets ends (Ctrl-C to a run that just exited) are nobody's to read.
  child.stdin.on('error', () => {});
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    raw += text;
    for (const check of waiters) check();
  });
  // A pets that ignores Ctrl-C or waits forever must fail the test, not outlive it.
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      for (const check of waiters) check();
      resolve(code);
    }),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  const screen = () => plainScreen(raw);
  return {
    screen,
    raw: () => raw,
    exited,
    pid: () => {
      const pid = descendants(child.pid!).find((id) => {
        const [program, script] = commandLine(id);
        return program === process.execPath && script === BIN;
      });
      if (pid === undefined) throw new Error('pets is not running');
      return pid;
    },
    type: (keys) => child.stdin.write(keys),
    waitFor(expected, timeoutMs = 20_000) {
      const seen = () =>
        typeof expected === 'string' ? screen().includes(expected) : expected.test(screen());
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (seen()) {
            done();
            resolve();
          } else if (ended || child.exitCode !== null) {
            done();
            reject(new Error(`pets ended without showing ${expected}; screen:\n${screen()}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${expected}; screen:\n${screen()}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** `args` as sh reads them back, each word single-quoted. */
function shellWords(args: string[]): string {
  return args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
}

/** Every process below `pid` (Linux: /proc/PID/task/PID/children). */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** tmux, where the tests read a real terminal's whole scrollback. */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export interface TmuxPane {
  /** Runs a tmux command on this pane's server. */
  tmux(...args: string[]): string;
  /** The screen as shown now. */
  screen(): string;
  /** Waits (30 s at most) until the screen matches `pattern`; fails with the screen otherwise. */
  until(pattern: RegExp): Promise<void>;
  /**
   * The whole scrollback: `rows` as shown, and `lines` with the rows tmux wrapped joined (so a
   * line wider than the terminal shows as one).
   */
  scrollback(): { rows: string[]; lines: string[] };
  /** Ends the tmux server. */
  kill(): void;
}

/**
 * A tmux pane `columns` wide and 40 rows high, on a server of its own whose socket is in `dir`,
 * running `sh script`.
 */
export function tmuxPane(dir: string, columns: number, script: string): TmuxPane {
  const socket = join(dir, 'tmux');
  // The pane is a person's terminal: CI's own CI=1 would tell pets nobody can answer there.
  const { CI: _ci, ...env } = process.env;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env });
  tmux('new-session', '-d', '-s', 'pets', '-x', String(columns), '-y', '40', `sh '${script}'`);
  const screen = () => tmux('capture-pane', '-p', '-t', 'pets');
  const all = ['-p', '-t', 'pets', '-S', '-', '-E', '-'];
  return {
    tmux,
    screen,
    async until(pattern) {
      for (let waited = 0; !pattern.test(screen()); waited += 50) {
        if (waited > 30_000) throw new Error(`no ${pattern} on the screen:\n${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    scrollback: () => ({
      rows: tmux('capture-pane', ...all)
        .trimEnd()
        .split('\n'),
      lines: tmux('capture-pane', '-J', ...all)
        .trimEnd()
        .split('\n'),
    }),
    kill() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}

/** What a run of pets in tmux left: its whole scrollback, as in TmuxPane, and its exit code. */
export interface TmuxRun {
  rows: string[];
  lines: string[];
  code: number;
}

/**
 * Runs the built pets with `args` in a tmux pane `columns` wide (tmuxPane, its socket in
 * `dir`), from a script in `dir` that exports `env`, so that a key never shows on a command
 * line, after `earlierRows` rows of earlier output, as in a terminal in use. `during(pane)`
 * runs while pets does; once pets has ended, returns the whole scrollback and its exit code.
 */
export async function petsInTmux(options: {
  dir: string;
  columns: number;
  args: string[];
  env: Record<string, string>;
  earlierRows?: number;
  during: (pane: TmuxPane) => Promise<void>;
}): Promise<TmuxRun> {
  const { dir, columns, args, env, earlierRows = 0, during } = options;
  const script = join(dir, 'run.sh');
  const exports = Object.entries(env).map(([name, value]) => `export ${name}='${value}'`);
  writeFileSync(
    script,
    [
      ...exports,
      ...(earlierRows > 0 ? [`seq 1 ${earlierRows}`] : []),
      `"${process.execPath}" "${BIN}" ${shellWords(args)}`,
      'echo "pets exited $?"',
      'sleep 60',
      '',
    ].join('\n'),
  );
  const pane = tmuxPane(dir, columns, script);
  try {
    await during(pane);
    await pane.until(/pets exited \d+/);
    const { rows, lines } = pane.scrollback();
    const code = Number(/pets exited (\d+)/.exec(rows.join('\n'))![1]);
    return { rows, lines, code };
  } finally {
    pane.kill();
  }
}

/** The live line of a wait, on `pane` now: one row showing a `frame`, narrower than the pane. */
export function expectOneLiveFrame(pane: TmuxPane, frame: RegExp, columns: number): void {
  const live = pane
    .screen()
    .split('\n')
    .filter((row) => frame.test(row));
  expect(live, pane.screen()).toHaveLength(1);
  expect(live[0]!.length).toBeLessThan(columns);
}
