/**
 * The signals that stop a run, each with the exit code a shell gives it (128 + its number).
 * Stateless, so that main.js may hold a copy of its own (src/build/bundle.mjs).
 */
export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type StopSignal = keyof typeof STOP_SIGNALS;
