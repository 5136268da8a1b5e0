import type { Pet } from '../api/contract.js';
import type { ErrorJson } from '../core/errors.js';
import { stringifyJson } from '../json/int64-json.js';

// Apart from render.ts so that --json output does not load cli-table3.

/** Pretty JSON for a person at a terminal, one line for a program. */
export function renderJson(value: unknown, stdoutIsTTY: boolean): string {
  return `${stringifyJson(value, stdoutIsTTY ? 2 : 0)}\n`;
}

/**
 * One line of a batch's NDJSON, as the contract fixes it: {"line":N,"pet":{…}} or
 * {"line":N,"error":{…}}; `skipped` marks a pet created by an earlier run.
 */
export function renderBatchLine(
  outcome: { line: number } & ({ pet: Pet } | { error: ErrorJson }),
  skipped = false,
): string {
  const line =
    'pet' in outcome
      ? { line: outcome.line, pet: outcome.pet, ...(skipped ? { skipped: true } : {}) }
      : { line: outcome.line, error: outcome.error };
  return `${stringifyJson(line)}\n`;
}
