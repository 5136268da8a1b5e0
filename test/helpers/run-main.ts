import type { Clock } from '../../src/core/clock.js';
import { main } from '../../src/runtime/main.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { captureIo, type IoOptions } from './io.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs pets in this process with captured io and only the environment given. */
export async function runMain(
  args: string[],
  env: Record<string, string | undefined>,
  io: IoOptions = {},
  clock?: Clock,
): Promise<RunResult> {
  const captured = captureIo(io);
  const deps = createDeps({ signal: new AbortController().signal, io: captured, env, clock });
  const code = await main(['node', 'pets', ...args], deps);
  return { code, stdout: captured.out(), stderr: captured.err() };
}
