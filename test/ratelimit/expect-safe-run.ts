import { expect } from 'vitest';
import type { RunReport } from './simulation.js';

/**
 * The promises every simulated run keeps: it finishes without errors, nothing is ever sent
 * while a block is known, pets alone on a key gets no 429, and the server admits every
 * request (`admitted`). `context` names the case in a failure.
 */
export function expectSafeRun(report: RunReport, admitted: number, context: string): void {
  expect(report.finished, context).toBe(true);
  expect(report.errors, context).toEqual([]);
  expect(report.sendsIntoKnownBlock, context).toBe(0);
  expect(report.server.sentWhileBlocked, context).toBe(0);
  expect(report.server.limited, context).toBe(0);
  expect(report.server.admitted, context).toBe(admitted);
}
