import { setMaxListeners } from 'node:events';
import type { ConfigStore } from '../config/store.js';
import { configDir, type Env } from '../config/paths.js';
import { systemClock, type Clock } from '../core/clock.js';
import { fdOutput, isTerminal } from './fd-output.js';
import { Secrets } from '../core/redact.js';
import { urlPassword } from '../config/rate-store.js';
import type { Deps } from '../cmd/shared/deps.js';
import type { ApiOpener } from './open-api.js';
import type { Io } from '../terminal/io.js';
import { terminalPrompter, type Prompter } from '../terminal/prompt.js';

/**
 * The process's own io. Output goes straight to file descriptors 1 and 2 (fd-output.ts);
 * `onClosed` runs when the reader of stdout closes its end.
 */
export async function processIo(onClosed: () => void): Promise<Io> {
  const [stdoutIsTTY, stderrIsTTY] = await Promise.all([isTerminal(1), isTerminal(2)]);
  return {
    stdout: fdOutput(1, onClosed),
    // A closed stderr only loses messages: the run goes on and exits with its own code, so
    // a failed add (exit 7) does not become a success (exit 0) for the script that ran it.
    stderr: fdOutput(2, () => {}),
    // Node builds process.stdin on first touch, loading fs streams; most commands
    // never read it.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY,
    stderrIsTTY,
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    // Asked only to draw a table on a terminal, which loads cli-table3 anyway. A terminal
    // that does not know its size says 0.
    get stdoutColumns() {
      return (stdoutIsTTY && process.stdout.columns) || undefined;
    },
    // Asked only by a progress line on a terminal, at each draw. Node reads a terminal's size
    // again on SIGWINCH, but a frame drawn between a resize and the signal's turn of the event
    // loop would wrap and stay on the screen: so the size is read again here (one ioctl, at
    // most ten times a second), which also emits 'resize' if it changed.
    get stderrColumns() {
      if (!stderrIsTTY) return undefined;
      const stderr = process.stderr as typeof process.stderr & { _refreshSize?: () => void };
      stderr._refreshSize?.();
      return stderr.columns || undefined;
    },
    onStderrResize(listener) {
      if (!stderrIsTTY) return () => {};
      process.stderr.on('resize', listener);
      return () => process.stderr.off('resize', listener);
    },
  };
}

export interface WiringOptions {
  signal: AbortSignal;
  io: Io;
  env?: Env;
  clock?: Clock;
  /**
   * The process ends right after the run (main, for bin/pets.js): close() then leaves
   * undici's sockets for the OS to close. undici unrefs idle ones, so they do not hold the
   * process open, and closing them gracefully would hold up every API command's exit.
   */
  processEndsAfterRun?: boolean;
  /** Answers in place of a person's (tests); by default, questions on io's terminal. */
  prompts?: Prompter;
}

/**
 * The one place real dependencies are made: main passes the process's io (processIo), tests
 * their own io and env. Heavy modules load only when a command asks for them.
 */
export function createDeps({
  signal,
  io,
  env = process.env,
  clock = systemClock,
  processEndsAfterRun = false,
  prompts = terminalPrompter(io, signal),
}: WiringOptions): Deps {
  let config: ConfigStore | undefined;
  let opener: ApiOpener | undefined;
  const secrets = new Secrets().add(env.PETS_API_KEY).add(urlPassword(env.PETS_RATE_STORE));

  return {
    io,
    env,
    clock,
    signal,
    prompts,
    secrets,
    async config() {
      const { openConfigStore } = await import('../config/store.js');
      return (config ??= openConfigStore(configDir(env)));
    },
    async api(target, settings) {
      // Each request of a batch listens for Ctrl-C: many listeners are expected, not a leak.
      // Said here, not for every run: only runs that send requests need it.
      setMaxListeners(0, signal);
      const { ApiOpener } = await import('./open-api.js');
      opener ??= new ApiOpener(env, clock, secrets);
      return opener.open(target, settings);
    },
    async close() {
      await opener?.close(!processEndsAfterRun);
    },
  };
}
