import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { RunResult } from './run-main.js';

export const BIN = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));

/**
 * The single executable (`npm run package`) to run instead of bin/pets.js: .ci/run sets it
 * to run the tests that spawn pets through runBinary against the executable too.
 */
export const EXECUTABLE = process.env.PETS_TEST_EXECUTABLE || undefined;

/**
 * Spawns the built bin/pets.js (or the EXECUTABLE) with only the environment given (plus PATH), so nothing from
 * the developer's shell or CI leaks in.
 */
export function runBinary(
  args: string[],
  env: Record<string, string | undefined>,
  input?: string,
): Promise<RunResult> {
  const run = startBinary(args, env);
  run.write(input ?? '');
  return run.done;
}

/** A run of pets as runBinary starts it, whose stdin is written (then closed) when the test says. */
export interface StartedBinary {
  /** Writes `input` to stdin and closes it. */
  write(input: string): void;
  done: Promise<RunResult>;
  pid: number | undefined;
}

export function startBinary(
  args: string[],
  env: Record<string, string | undefined>,
): StartedBinary {
  const [file, argv] = EXECUTABLE ? [EXECUTABLE, args] : [process.execPath, [BIN, ...args]];
  const child = spawn(file, argv, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  // A run that ends before reading all of its stdin closes it: not the test's failure.
  child.stdin.on('error', () => {});
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    // Ended by a signal it did not handle: the status a shell reports (130 for SIGINT), as
    // a second Ctrl-C may end pets while it exits, after its handlers are gone.
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 + constants.signals[signal] : -1), stdout, stderr }),
    );
  });
  return { write: (input) => child.stdin.end(input), done, pid: child.pid };
}
