import { LineSplitter, type Line } from '../../batch/input/lines.js';
import type { DeprecationHeaders, PetsApi } from '../../api/client.js';
import { parseInt64, type Pet } from '../../api/contract.js';
import { runBatch } from '../../batch/run-batch.js';
import {
  NotFoundError,
  PetsError,
  errorJson,
  ownErrorJson,
  type ErrorJson,
} from '../../core/errors.js';

/** One id to fetch, or why the input line is not one. */
export interface IdInput {
  line: number;
  id?: bigint;
  problem?: string;
}

/** What became of one requested id, in input order. */
export type GetOutcome =
  | { line: number; id: bigint; pet: Pet }
  | { line: number; id?: bigint; error: ErrorJson; refused?: true };

export interface GetResult {
  found: number;
  missing: number;
  invalid: number;
  /** Ids the run stopped before fetching. */
  notSent: number;
  /** Ids sent and refused by the answer the run stopped on (401, 403, a 429 or 503 storm). */
  refused: number;
  /** The server's Deprecation/Sunset headers, from the first answer that carried them. */
  deprecation: DeprecationHeaders;
  /** Why the run ended before the input did (auth, rate limit, network). */
  stoppedBy?: PetsError;
}

/**
 * Fetches many pets, concurrently and paced by the rate gate. A missing pet or a bad id is
 * an outcome of its own, so the others still come; any other failure ends the run, as it
 * would fail every id.
 */
export async function getPets(
  ids: AsyncIterable<IdInput>,
  options: { concurrency: number },
  deps: { api: PetsApi; signal?: AbortSignal; report(outcome: GetOutcome): void },
): Promise<GetResult> {
  const result: GetResult = {
    found: 0,
    missing: 0,
    invalid: 0,
    notSent: 0,
    refused: 0,
    deprecation: {},
  };
  const end = await runBatch<IdInput, GetOutcome>({
    items: ids,
    concurrency: options.concurrency,
    async work({ line, id, problem }, halted) {
      if (id === undefined) {
        return {
          result: { line, error: ownErrorJson('invalid_id', `line ${line}: ${problem}`, 2) },
        };
      }
      // Whether its request left: one refused, then stopped, was sent, not "not fetched".
      let left = false;
      try {
        const fetched = await deps.api.getPet(id, {
          signal: deps.signal,
          halted,
          left: () => (left = true),
        });
        if (Object.keys(result.deprecation).length === 0) result.deprecation = fetched.deprecation;
        return { result: { line, id, pet: fetched.pet } };
      } catch (error) {
        if (error instanceof NotFoundError)
          return { result: { line, id, error: errorJson(error) } };
        if (!left || !(error instanceof PetsError)) throw error;
        const refusal = {
          ...errorJson(error),
          message: `line ${line}: sent, and refused${error.status === undefined ? '' : ` (${error.status})`}; the run stopped before sending it again`,
        };
        return { result: { line, id, error: refusal, refused: true }, stop: error };
      }
    },
    emit(_input, outcome) {
      if ('pet' in outcome) result.found++;
      else if (outcome.refused) result.refused++;
      else if (outcome.error.code === 'not_sent') result.notSent++;
      else if (outcome.id === undefined) result.invalid++;
      else result.missing++;
      deps.report(outcome);
    },
    // Every id given gets its line, also those the run stopped before fetching.
    notDone: ({ line, id }) => ({
      line,
      ...(id === undefined ? {} : { id }),
      error: ownErrorJson('not_sent', `line ${line}: not fetched: the run stopped first`, 1),
    }),
    stop: deps.signal,
  });
  if (end.stoppedBy !== undefined && !(end.stoppedBy instanceof PetsError)) throw end.stoppedBy;
  return end.stoppedBy ? { ...result, stoppedBy: end.stoppedBy } : result;
}

/**
 * One id per line, streamed: a line ends at \n, \r\n or a lone \r, as a terminal or an old Mac
 * file ends it. Blank lines are skipped, anything else that is not an int64 is reported. Not
 * read as CSV: a stray quote would join the lines after it into one field, their ids lost.
 */
export async function* readIds(stdin: NodeJS.ReadableStream): AsyncIterable<IdInput> {
  const splitter = new LineSplitter();
  let number = 0;
  function* idsOf(line: Line): Generator<IdInput> {
    if (!('text' in line)) {
      yield { line: ++number, problem: line.problem };
      return;
    }
    const pieces = line.text.split('\r');
    // A \r\n ends one line, not two.
    if (pieces.length > 1 && pieces.at(-1) === '') pieces.pop();
    for (const piece of pieces) {
      number++;
      const text = piece.trim();
      if (text === '') continue;
      const id = parseInt64(text);
      yield id === undefined
        ? { line: number, problem: 'not an int64 pet id' }
        : { line: number, id };
    }
  }
  for await (const chunk of stdin as AsyncIterable<Uint8Array | string>) {
    for (const line of splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      yield* idsOf(line);
    }
  }
  for (const line of splitter.end()) yield* idsOf(line);
}
