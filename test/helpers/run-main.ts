import type { Clock } from '../../src/core/clock.js';
import { main } from '../../src/runtime/main.js';
import { createDeps } from '../../src/runtime/wiring.js';
import type { Prompter } from '../../src/terminal/prompt.js';
import { captureIo, type IoOptions } from './io.js';
import { noPerson } from './prompter.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs pets in this process with captured io and only the environment given. Questions go to
 * `io.prompts` (test/helpers/prompter.ts), by default to nobody: a question fails the run.
 */
export async function runMain(
  args: string[],
  env: Record<string, string | undefined>,
  io: IoOptions & { prompts?: Prompter } = {},
  clock?: Clock,
): Promise<RunResult> {
  const captured = captureIo(io);
  const deps = createDeps({
    signal: new AbortController().signal,
    io: captured,
    env,
    clock,
    prompts: io.prompts ?? noPerson(),
  });
  const code = await main(['node', 'pets', ...args], deps);
  return { code, stdout: captured.out(), stderr: captured.err() };
}
