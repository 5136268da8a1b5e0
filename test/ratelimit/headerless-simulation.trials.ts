import { describe, expect, it } from 'vitest';
import { seedsToRun } from './simulation.js';
import {
  FAMILIES,
  headerlessCase,
  nginxCase,
  runToEnd,
  type HeaderlessCase,
} from './headerless-simulation.js';

// The pacing learnt from 429s (src/ratelimit/pacing.ts) over many seeds. Seeds that once
// failed, kept as found: 5, two imports at 1 r/s where one process's now lagged the other's
// by a third of a second, so their sends came closer than the pace (a fourth 429).
const REGRESSIONS = [5];
/** Seeds whose run still stops, kept so that a fix shows: see the last test. */
const KNOWN_STOPS: Array<[number, HeaderlessCase['family']]> = [
  [74, 'nginx burst nodelay'],
  [74, 'fixed window'],
];

describe("nginx limit_req at the issue's rates, no headers, many seeds", () => {
  const seeds = seedsToRun('HEADERLESS', 100, REGRESSIONS);
  it.each(seeds)(
    '2 and 3 r/s, a 60-record import: at most 3 × 429, within 1.2× (seed %i)',
    async (seed) => {
      for (const rate of [2, 3]) {
        const { report, context } = await runToEnd(nginxCase(seed, rate, [60]));
        expect(report.limited, context).toBeLessThanOrEqual(3);
        expect(report.ratio, context).toBeLessThanOrEqual(1.2);
      }
    },
  );

  it.each(seeds)(
    '2 and 3 r/s, two imports of 40 at once: at most 3 × 429, within 1.25× (seed %i)',
    async (seed) => {
      for (const rate of [2, 3]) {
        const { report, context } = await runToEnd(nginxCase(seed, rate, [40, 40]));
        expect(report.limited, context).toBeLessThanOrEqual(3);
        expect(report.ratio, context).toBeLessThanOrEqual(1.25);
      }
    },
  );
});

describe('every limiter family, no headers, many seeds', () => {
  const seeds = seedsToRun('HEADERLESS', 300, REGRESSIONS);
  // Bounds as measured (the report of #39 has the figures): the burst families hide the rate
  // until the burst is spent, and a window's least time is a burst, which pacing spreads.
  const most429: Record<HeaderlessCase['family'], number> = {
    'nginx burst=0': 6,
    'nginx burst': 20,
    'nginx burst nodelay': 30,
    'token bucket': 40,
    'fixed window': 25,
    'sliding window': 25,
  };
  it.each(seeds)('seed %i: every record once, the run ends, 429s bounded', async (seed) => {
    for (const family of FAMILIES) {
      if (KNOWN_STOPS.some(([known, f]) => known === seed && f === family)) continue;
      const { report, context } = await runToEnd(headerlessCase(seed, family));
      expect(report.limited, context).toBeLessThanOrEqual(most429[family]);
    }
  });

  // Not solved: the burst hides the rate, both processes learn a gap the burst accepted, and
  // one request is refused MAX_ATTEMPTS times, which stops the batch (exit 5).
  it.fails.each(KNOWN_STOPS)(
    'seed %i, %s: a request refused 5 times stops a batch',
    async (seed, family) => {
      await runToEnd(headerlessCase(seed, family));
    },
  );
});
