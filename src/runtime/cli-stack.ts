// What every run but --version needs, behind the one import() in main.ts: the build makes
// this module and all it reaches one file (src/build/bundle.mjs).
export { CommanderError } from 'commander';
export { InterruptedError } from '../core/errors.js';
export { buildProgram } from '../cmd/root.js';
// For the man page, made from the built program (src/build/man-page.mjs).
export { helpTopics } from '../cmd/help/help.js';
export { createDeps, processIo } from './wiring.js';
export { StderrNotices } from '../terminal/stderr-notices.js';

/** How a failed run is told: loaded only when a run fails. */
export async function reportFailure() {
  const [color, report] = await Promise.all([
    import('../output/color.js'),
    import('../terminal/report-error.js'),
  ]);
  return { ...color, ...report };
}
