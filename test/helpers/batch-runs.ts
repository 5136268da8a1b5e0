import { spawn } from 'node:child_process';
import { BIN } from './run-binary.js';

/**
 * Starts the built pets with `args` (run through `wrapper`, `unshare …` say, when given),
 * reading its stderr; `exited` resolves with its exit code and that stderr.
 */
export function startPets(args: string[], env: NodeJS.ProcessEnv, wrapper: string[] = []) {
  const [file, ...argv] = [...wrapper, process.execPath, BIN, ...args];
  const child = spawn(file!, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.resume();
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  return { child, exited };
}

/** Resolves once `done()` holds, or after `limitMs`. */
export async function until(done: () => boolean, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

/** The names created more than once, once for each time after the first. */
export function duplicatesOf(created: string[]): string[] {
  const seen = new Set<string>();
  return created.filter((name) => (seen.has(name) ? true : (seen.add(name), false)));
}
