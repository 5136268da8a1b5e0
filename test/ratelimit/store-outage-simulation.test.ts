import { describe, expect, it } from 'vitest';
import { caseFor, seededRandom, simulate } from './simulation.js';

// Machines sharing one store over a network (RunOptions.network): every change of the state a
// round trip of random latency, and in every other seed an outage of the store part-way
// through. On virtual time, over the seeds: 0 × 429, 0 sends into a known block, 0 bans;
// every request that fails fails as the store lost (exit 6), none sent by a process after it
// found the store lost; and with no outage, every request is admitted.
const SEEDS = 200;
const tally = { seeds: 0, outages: 0, stopped: 0, requestsStopped: 0, admitted: 0 };

describe('machines sharing a store over a network, with outages, simulated', () => {
  it.each(Array.from({ length: SEEDS }, (_, i) => i + 1))('seed %i', async (seed) => {
    const random = seededRandom(seed * 15_485_863);
    const base = caseFor(seed);
    const outage =
      seed % 2 === 0 ? { fromMs: Math.floor(random() * 20_000), untilMs: 0 } : undefined;
    if (outage) outage.untilMs = outage.fromMs + 1 + Math.floor(random() * 10_000);
    const options = {
      ...base,
      processes: 2 + Math.floor(random() * 4),
      network: { latencyMs: 1 + Math.floor(random() * 30), ...(outage && { outage }) },
    };
    const report = await simulate(options);
    const context = `${base.name}, outage ${JSON.stringify(outage)}: ${JSON.stringify(report)}`;
    tally.seeds++;
    tally.outages += outage ? 1 : 0;
    tally.stopped += report.errors.length > 0 ? 1 : 0;
    tally.requestsStopped += report.errors.length;
    tally.admitted += report.server.admitted;
    if (tally.seeds === SEEDS) {
      console.log(`store outages, ${SEEDS} seeds:`, tally);
      // Not vacuous: outages met runs under way, and stopped them.
      expect(tally.stopped).toBeGreaterThan(SEEDS / 10);
    }
    expect(report.finished, context).toBe(true);
    expect(report.sendsIntoKnownBlock, context).toBe(0);
    expect(report.server.limited, context).toBe(0);
    expect(report.server.sentWhileBlocked, context).toBe(0);
    expect(report.sentAfterLoss, context).toBe(0);
    for (const error of report.errors) expect(error, context).toMatch(/^lost the rate store /);
    if (!outage || report.errors.length === 0) {
      expect(report.errors, context).toEqual([]);
      expect(report.server.admitted, context).toBe(options.requests);
    }
  });
});
