import { describe, expect, it } from 'vitest';
import { FAMILIES, headerlessCase, nginxCase, runToEnd } from './headerless-simulation.js';

// A few seeds of the pacing learnt from 429s (src/ratelimit/pacing.ts); the many-seed sweep
// is headerless-simulation.trials.ts.

describe('a server with no rate headers, simulated', () => {
  it.each([1, 2, 3])(
    'nginx 2 r/s, burst=0, a 60-record import: at most 3 × 429, within 1.2× (seed %i)',
    async (seed) => {
      const { report, context } = await runToEnd(nginxCase(seed, 2, [60]));
      expect(report.limited, context).toBeLessThanOrEqual(3);
      expect(report.ratio, context).toBeLessThanOrEqual(1.2);
    },
  );

  it('nginx 2 r/s, two imports of 40 at once share the pace: no more 429s than one import', async () => {
    const { report, context } = await runToEnd(nginxCase(1, 2, [40, 40]));
    expect(report.limited, context).toBeLessThanOrEqual(3);
    expect(report.ratio, context).toBeLessThanOrEqual(1.3);
  });

  it.each(FAMILIES)('%s: every record goes once and the run ends', async (family) => {
    await runToEnd(headerlessCase(1, family));
  });
});
