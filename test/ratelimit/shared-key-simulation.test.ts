import { describe, expect, it } from 'vitest';
import { fixedWindow, seededChoices, simulate, type RunOptions } from './simulation.js';

// Machines on one key with no store between them (PETS_RATE_STORE unset): each keeps its own
// state and learns of the others only from the server's answers. Each must notice another
// client on the key, say so once, and go one request at a time until the window's Reset;
// processes sharing one state (one machine) never take each other for another client: that
// is held in every other simulation (expect-safe-run.ts). On virtual time, seeds 1..SEEDS.
const SEEDS = 200;

function machinesCase(seed: number): RunOptions & { name: string } {
  const { between } = seededChoices(seed * 104_729);
  const limit = between(6, 40);
  const seconds = [2, 5, 10, 30][between(0, 3)]!;
  const processes = between(2, 4);
  const requests = between(2 * limit, 4 * limit);
  return {
    name: `fixed ${limit}/${seconds}s, ${processes} machines, ${requests} requests`,
    seed,
    model: () => fixedWindow(limit, seconds * 1000, true),
    style: 'x-ratelimit',
    skewMs: 0,
    processes,
    workersPerProcess: between(1, 6),
    requests,
    ownShares: true,
    machines: true,
  };
}

const totals = { runs: 0, noticed: 0, limited: 0, banned: 0 };

describe('machines on one key without a store, simulated', () => {
  it.each(Array.from({ length: SEEDS }, (_, i) => i + 1))('seed %i', async (seed) => {
    const options = machinesCase(seed);
    const report = await simulate(options);
    const context = `${options.name}: ${JSON.stringify(report)}`;
    totals.runs++;
    totals.noticed += report.anotherClientNotices.filter((n) => n === 1).length;
    totals.limited += report.server.limited;
    totals.banned += report.server.sentWhileBlocked;
    if (totals.runs === SEEDS) console.log(`machines without a store, ${SEEDS} seeds:`, totals);
    expect(report.finished, context).toBe(true);
    // Said once at most by each machine, and by one at least: the machines share a window
    // that holds fewer requests than they send, so the server's answers show the others.
    for (const notices of report.anotherClientNotices)
      expect(notices, context).toBeLessThanOrEqual(1);
    expect(Math.max(...report.anotherClientNotices), context).toBe(1);
  });
});
