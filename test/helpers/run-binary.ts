import { spawn } from 'node:child_process';
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
  return new Promise((resolve, reject) => {
    const [file, argv] = EXECUTABLE ? [EXECUTABLE, args] : [process.execPath, [BIN, ...args]];
    const child = spawn(file, argv, {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr }),
    );
    child.stdin.end(input);
  });
}
