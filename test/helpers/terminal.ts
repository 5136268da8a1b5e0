import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
  const quoted = args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  const pets = `"${process.execPath}" "${BIN}" ${quoted} ${redirect}`;
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
