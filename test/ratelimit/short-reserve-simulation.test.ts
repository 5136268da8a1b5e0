import { describe, expect, it } from 'vitest';
import {
  fixedWindow,
  seededChoices,
  seedsToRun,
  simulate,
  type HeaderStyle,
  type RunOptions,
} from './simulation.js';
import { expectSafeRun, expectTimelyRun } from './expect-safe-run.js';

/** A short command must answer this soon while a batch runs on its key (issue 32). */
const SHORT_ANSWER_MS = 5_000;

/**
 * An import on a per-minute plan (the contract's 60, 300 or 1000 a minute), one process with
 * the workers pets gives it by default, and one `pets list` typed at another terminal at any
 * moment of the import's windows but the last (there the import takes what it needs at once).
 */
export function reserveCaseFor(seed: number): RunOptions & { name: string; shortAtMs: number } {
  const { random, between, pick } = seededChoices(seed * 7_919);
  const limit = pick([60, 60, 300, 1000]);
  const windows = between(2, 5);
  const requests = between((windows - 1) * limit + 1, windows * limit);
  const aligned = random() < 0.7;
  const style = pick<HeaderStyle>(['x-ratelimit', 'x-ratelimit', 'ietf', 'ietf-earlier']);
  const workersPerProcess = Math.min(16, Math.ceil(limit / 60));
  const shortAtMs = between(500, (windows - 1) * 60_000 - 500);
  return {
    name: `fixed ${limit}/60s${aligned ? ' aligned' : ''}, 1×${workersPerProcess} workers, ${requests} requests, a list at ${shortAtMs} ms, ${style}`,
    seed,
    model: () => fixedWindow(limit, 60_000, aligned),
    style,
    skewMs: 0,
    processes: 1,
    workersPerProcess,
    requests,
    ownShares: true,
    shortAtMs,
  };
}

// RESERVE_SEEDS and RESERVE_SEED_BASE explore other seeds locally.
const seeds = seedsToRun('RESERVE', 60);

describe('a `pets list` during an import on the same key, simulated', () => {
  it.each(seeds)(
    'seed %i: the list answers within 5 s, the import as fast as before',
    async (seed) => {
      const options = reserveCaseFor(seed);
      const report = await simulate(options);
      const context = `${options.name}: ${JSON.stringify(report)}`;
      expectSafeRun(report, options.requests + 1, context);
      expect(report.shortLatencyMs, context).toBeLessThanOrEqual(SHORT_ANSWER_MS);
      expectTimelyRun(report, options, context);
    },
  );
});
