import { Secrets } from '../../src/core/redact.js';
import type { Env } from '../../src/config/paths.js';
import type { Prompter } from '../../src/terminal/prompt.js';
import { Terminal, type TerminalOptions } from '../../src/terminal/terminal.js';
import { captureIo, type IoOptions } from './io.js';
import { noPerson } from './prompter.js';

/**
 * A Terminal on buffers (gh's iostreams.Test()): what a command printed is `out()` and
 * `err()`; nothing is a terminal unless `io` says so, and nobody answers unless `prompts` does.
 */
export function testTerminal(
  settings: {
    io?: IoOptions;
    env?: Env;
    options?: Partial<TerminalOptions>;
    secrets?: string[];
    prompts?: Prompter;
  } = {},
): { terminal: Terminal; out(): string; err(): string } {
  const io = captureIo(settings.io);
  const options = { json: false, color: false, quiet: false, input: true, ...settings.options };
  const secrets = new Secrets();
  for (const secret of settings.secrets ?? []) secrets.add(secret);
  const prompts = settings.prompts ?? noPerson();
  const terminal = new Terminal({ io, env: settings.env ?? {}, prompts }, options, secrets);
  return { terminal, out: io.out, err: io.err };
}
