import { STOP_SIGNALS, type StopSignal } from '../core/stop-signals.js';

/**
 * The first Ctrl-C, SIGTERM or SIGHUP (a dropped ssh session) cancels what is under way; a
 * second one exits at once, with that signal's exit code. Returns what removes the handlers.
 */
export function onInterrupt(
  stop: AbortController,
  interrupted: (signal: StopSignal) => Error,
): () => void {
  const handler = (signal: StopSignal) => {
    if (stop.signal.aborted) process.exit(STOP_SIGNALS[signal]);
    stop.abort(interrupted(signal));
  };
  const signals = Object.keys(STOP_SIGNALS) as StopSignal[];
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
