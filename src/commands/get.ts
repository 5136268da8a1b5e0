import type { DeprecationHeaders, PetsApi } from '../api/client.js';
import type { Pet } from '../api/contract.js';
import { NotFoundError } from '../errors.js';

/** One requested id and what became of it; `line` counts from 1 in the order given. */
export type GetOutcome =
  { line: number; id: bigint; pet: Pet } | { line: number; id: bigint; error: NotFoundError };

export interface GetResult {
  outcomes: GetOutcome[];
  /** The server's Deprecation/Sunset headers, from the first answer that carried them. */
  deprecation: DeprecationHeaders;
}

/**
 * Fetches each id in turn. A missing pet is an outcome of its own, so the others still print;
 * any other failure (auth, network, rate limit) stops the run, as it would fail every id.
 */
export async function getPets(
  ids: readonly bigint[],
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<GetResult> {
  const outcomes: GetOutcome[] = [];
  let deprecation: DeprecationHeaders = {};
  for (const [index, id] of ids.entries()) {
    const line = index + 1;
    try {
      const result = await deps.api.getPet(id, { signal: deps.signal });
      if (Object.keys(deprecation).length === 0) deprecation = result.deprecation;
      outcomes.push({ line, id, pet: result.pet });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      outcomes.push({ line, id, error });
    }
  }
  return { outcomes, deprecation };
}
