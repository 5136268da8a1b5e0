/**
 * The first Ctrl-C, SIGTERM or SIGHUP (a dropped ssh session) cancels what is under way; a
 * second one exits at once. Returns what removes the handlers.
 */
export function onInterrupt(stop: AbortController, interrupted: () => Error): () => void {
  const handler = () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort(interrupted());
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
