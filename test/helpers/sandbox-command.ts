import type { Env } from '../../src/config/paths.js';
import { main } from '../../src/runtime/main.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { tempConfigDir } from './config-dir.js';
import { captureIo, type IoOptions } from './io.js';

/**
 * Runs `pets sandbox --no-save-profile <args>` in this process: once it has said where it
 * listens (its first line on stdout), `during` may send it requests; then it is stopped as
 * Ctrl-C would stop it. Returns its exit code and what it wrote.
 */
export async function runSandboxCommand(
  args: string[],
  settings: { io?: IoOptions; env?: Env; during?: (out: string) => Promise<void> } = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(settings.io);
  const stop = new AbortController();
  let listening!: () => void;
  const said = new Promise<void>((resolve) => (listening = resolve));
  const write = io.stdout.write;
  io.stdout.write = (text: string) => {
    write(text);
    listening();
  };
  const env = settings.env ?? { PETS_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const deps = createDeps({ signal: stop.signal, io, env });
  const run = main(['node', 'pets', 'sandbox', '--no-save-profile', ...args], deps);
  await Promise.race([said, run]);
  await settings.during?.(io.out());
  // Once the sandbox has begun to wait for the stop.
  setImmediate(() => stop.abort());
  const code = await run;
  return { code, out: io.out(), err: io.err() };
}
