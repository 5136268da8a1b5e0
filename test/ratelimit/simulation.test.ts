import { describe, it } from 'vitest';
import { caseFor, seedsToRun, simulate } from './simulation.js';
import { expectSafeRun, expectTimelyRun } from './expect-safe-run.js';

/**
 * Seeds that once failed, kept as they were found (SIM_SEEDS and SIM_SEED_BASE explore others
 * locally). 417: a window that ended 3 ms after the
 * run began, which the oracle used and no client with latency could. 1340: a late answer
 * whose Reset, rounded to whole seconds from the answer, read as a new window, and reset
 * the budget: one 429. 2947: a sliding window whose answers, mostly not fresh, could only
 * lower the budget, which then sat at 0 for a whole window. 2156: four processes on 11 per
 * 10 s, when answers were written late whatever the budget: a process that read the claims
 * of answered requests as still in flight waited a whole window it did not need to.
 */
const REGRESSIONS: number[] = [417, 1340, 2156, 2947];

const seeds = seedsToRun('SIM', 400, REGRESSIONS);

describe('the rate gate on strict servers, simulated', () => {
  it.each(seeds)('seed %i', async (seed) => {
    const options = caseFor(seed);
    const report = await simulate(options);
    const context = `${options.name}: ${JSON.stringify(report)}`;
    expectSafeRun(report, options.requests, context);
    expectTimelyRun(report, options, context);
  });
});
