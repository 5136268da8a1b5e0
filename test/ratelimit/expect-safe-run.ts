import { expect } from 'vitest';
import type { RunOptions, RunReport } from './simulation.js';

/**
 * The promises every simulated run keeps: it finishes without errors, nothing is ever sent
 * while a block is known, pets alone on a key gets no 429, the server admits every
 * request (`admitted`), and no process takes another for a client outside the state. `context` names the case in a failure.
 */
export function expectSafeRun(report: RunReport, admitted: number, context: string): void {
  expect(report.finished, context).toBe(true);
  expect(report.errors, context).toEqual([]);
  expect(report.sendsIntoKnownBlock, context).toBe(0);
  expect(report.server.sentWhileBlocked, context).toBe(0);
  expect(report.server.limited, context).toBe(0);
  expect(report.server.admitted, context).toBe(admitted);
  // Processes sharing one state never take each other for another client.
  expect(report.anotherClientNotices, context).toEqual(report.anotherClientNotices.map(() => 0));
}

/**
 * The promise a run keeps where the server's Reset tells when its window ends: as fast as the
 * limit allows. Within 1.05× of the least time, plus what the requests take with no limit at
 * all (round trips, one at a time per worker, and the first request's, which learns the window
 * before the others follow), plus the second that the server's Date leaves unknown: once, or,
 * when the server's clock is not this one, at each wait, until answers on both sides of its
 * tick have told its clock closely.
 */
export function expectTimelyRun(report: RunReport, options: RunOptions, context: string): void {
  const noLimitMs =
    (Math.ceil(options.requests / (options.processes * options.workersPerProcess)) + 1) *
    report.maxLatencyMs;
  const dateResolutionMs = 1_000 * (options.skewMs === 0 ? 1 : Math.max(1, report.leastWaits));
  expect(report.elapsedMs, context).toBeLessThanOrEqual(
    1.05 * report.leastMs + noLimitMs + dateResolutionMs,
  );
}
