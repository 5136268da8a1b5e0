import { afterAll, describe, expect, it } from 'vitest';
import { MAX_REFUSALS } from '../../src/ratelimit/policy.js';
import { caseFor, seedsToRun, simulate, type RunOptions } from './simulation.js';

const STORMS: Array<[string, NonNullable<RunOptions['storm']>]> = [
  ['429, Retry-After 1, Remaining high', { status: 429, retryAfter: () => '1', headers: true }],
  ['429, Retry-After 0, no headers', { status: 429, retryAfter: () => '0', headers: false }],
  [
    '429, Retry-After a past date',
    { status: 429, retryAfter: (now) => new Date(now - 60_000).toUTCString(), headers: false },
  ],
  ['429, Retry-After garbage', { status: 429, retryAfter: () => 'soon', headers: false }],
  ['429, no Retry-After', { status: 429, headers: false }],
  ['503, Retry-After 2', { status: 503, retryAfter: () => '2', headers: false }],
];

/**
 * The cases of simulation.ts (1 to 4 processes of 1 to 8 workers on one key, skewed server
 * clocks) against a server that refuses everything: the work ends, each process stopping
 * after at most MAX_REFUSALS refusals in a row on the key, nothing goes while a wait is known,
 * and the requests go one at a time, each waiting at least double the last.
 */
function stormCaseFor(seed: number) {
  const [stormName, storm] = STORMS[seed % STORMS.length]!;
  const base = caseFor(seed);
  return { ...base, storm, stormName, name: `${base.name}, storm ${stormName}` };
}

/** Per storm, over its seeds: what the server received, what pets said, the time to stop. */
const figures = new Map<string, Array<{ sent: number; said: number[]; elapsedMs: number }>>();

afterAll(() => {
  const range = (values: number[]) => {
    const [low, high] = [Math.min(...values), Math.max(...values)];
    return low === high ? `${low}` : `${low}–${high}`;
  };
  for (const [storm, runs] of figures) {
    console.log(
      `storm ${storm} (simulated, ${runs.length} seeds): server received ${range(runs.map((r) => r.sent))}; ` +
        `pets said "${range(runs.flatMap((r) => r.said))} times in a row"; ` +
        `stopped after ${range(runs.map((r) => Math.round(r.elapsedMs / 100) / 10))} s on the injected clock`,
    );
  }
});

// STORM_SEEDS and STORM_SEED_BASE explore other seeds locally.
const seeds = seedsToRun('STORM', 120);

describe('a server that refuses everything, simulated', () => {
  it.each(seeds)('seed %i', async (seed) => {
    const options = stormCaseFor(seed);
    const report = await simulate({ ...options, maxWaitMs: Number.POSITIVE_INFINITY });
    const context = `${options.name}: ${JSON.stringify(report)}`;
    const said = report.errors.map((error) => Number(/(\d+) times in a row/.exec(error)?.[1]));
    figures.set(options.stormName, [
      ...(figures.get(options.stormName) ?? []),
      { sent: report.server.sent, said, elapsedMs: report.elapsedMs },
    ]);
    expect(report.finished, context).toBe(true);
    expect(report.sendsIntoKnownBlock, context).toBe(0);
    // The streak is the key's: the process that meets the bound stops, and the others with it,
    // sending nothing more.
    expect(report.server.sent, context).toBe(MAX_REFUSALS);
    const words = options.storm.status === 429 ? '429 (rate limited)' : '503 (unavailable)';
    for (const error of report.errors) expect(error, context).toContain(words);
    // Five refusals, waits from 1 s doubling (Retry-After 2: from 2 s), with a quarter's jitter.
    expect(report.elapsedMs, context).toBeLessThan(2 * 1.25 * 2 ** MAX_REFUSALS * 1_000);
  });
});
