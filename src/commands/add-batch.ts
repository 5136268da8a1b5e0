import type { PetsApi } from '../api/client.js';
import type { NewPet, Pet } from '../api/contract.js';
import type { InputRecord } from '../batch/input/index.js';
import type { Journal } from '../batch/journal.js';
import { planRecord } from '../batch/plan.js';
import { recordHash } from '../batch/record-hash.js';
import { runBatch, type WorkResult } from '../batch/run-batch.js';
import {
  AuthError,
  InterruptedError,
  NetworkError,
  PetsError,
  RateLimitError,
  ServerError,
  errorJson,
  type ErrorJson,
} from '../errors.js';

/** What became of one input record, reported in input order. */
export type RecordResult =
  | { line: number; kind: 'created'; pet: Pet }
  | { line: number; kind: 'skipped'; pet: Pet }
  | { line: number; kind: 'failed'; error: ErrorJson }
  | { line: number; kind: 'unknown'; error: ErrorJson };

export interface BatchTally {
  created: number;
  failed: number;
  skipped: number;
  unknown: number;
}

export interface AddBatchResult extends BatchTally {
  /** Why the run ended before the input did. */
  stoppedBy?: PetsError;
}

export interface AddBatchOptions {
  records: AsyncIterable<InputRecord>;
  journal: Journal;
  retryUnknown: boolean;
  concurrency: number;
}

export interface AddBatchDeps {
  api: PetsApi;
  /** Cancels requests on the wire (the grace period after Ctrl-C is over). */
  signal: AbortSignal;
  /** Stops starting new records (Ctrl-C). */
  stop: AbortSignal;
  report(result: RecordResult): void;
}

// The server failing this many creates in a row is down, not picky: stop instead of
// piling up records whose fate is unknown.
const MAX_UNKNOWN_IN_A_ROW = 3;

const failure = (code: string, message: string, exitCode: number): ErrorJson => ({
  code,
  message,
  status: null,
  exitCode,
});

/**
 * Creates the records of a batch, each at most once across runs: the journal says what
 * earlier runs did, and every new outcome is journaled before it is reported.
 */
export async function addBatch(
  options: AddBatchOptions,
  deps: AddBatchDeps,
): Promise<AddBatchResult> {
  const tally: BatchTally = { created: 0, failed: 0, skipped: 0, unknown: 0 };
  let unknownInARow = 0;

  const send = async (
    line: number,
    hash: string,
    pet: NewPet,
  ): Promise<WorkResult<RecordResult>> => {
    try {
      const created = await deps.api.createPet(pet, {
        signal: deps.signal,
        stopSending: deps.stop,
      });
      options.journal.append({ line, hash, outcome: 'created', id: created.id });
      unknownInARow = 0;
      return { result: { line, kind: 'created', pet: created } };
    } catch (error) {
      // These end the run with nothing to record: the record was not created, so a later
      // run sends it. An interrupt before sending, no key, the quota, an unreachable server.
      if (
        (error instanceof InterruptedError && !error.requestSent) ||
        error instanceof AuthError ||
        error instanceof RateLimitError ||
        (error instanceof NetworkError && !error.requestMayHaveArrived) ||
        !(error instanceof PetsError)
      ) {
        throw error;
      }
      const mayHaveCreated =
        error instanceof NetworkError ||
        error instanceof ServerError ||
        error instanceof InterruptedError;
      if (mayHaveCreated) {
        const reported = {
          ...errorJson(error),
          code: 'outcome_unknown',
          // The client has said so of every failure but an interrupt.
          message:
            error instanceof InterruptedError
              ? `${error.message} (the pet may have been created)`
              : error.message,
        };
        options.journal.append({ line, hash, outcome: 'unknown', error: reported });
        unknownInARow++;
        const stop =
          error instanceof InterruptedError || unknownInARow >= MAX_UNKNOWN_IN_A_ROW
            ? error
            : undefined;
        return { result: { line, kind: 'unknown', error: reported }, stop };
      }
      options.journal.append({
        line,
        hash,
        outcome: 'failed',
        retryable: false,
        error: errorJson(error),
      });
      unknownInARow = 0;
      return { result: { line, kind: 'failed', error: errorJson(error) } };
    }
  };

  const work = async (record: InputRecord): Promise<WorkResult<RecordResult>> => {
    const { line, pet } = record;
    if (!pet) {
      return {
        result: {
          line,
          kind: 'failed',
          error: failure('invalid_record', `line ${line}: ${record.problem}`, 2),
        },
      };
    }
    const hash = recordHash(pet);
    const previous = options.journal.previous(line);
    switch (planRecord(hash, previous, options.retryUnknown)) {
      case 'send':
        return send(line, hash, pet);
      case 'skip-created':
        return { result: { line, kind: 'skipped', pet: { id: previous?.id ?? 0n, ...pet } } };
      case 'hold-unknown':
        return {
          result: {
            line,
            kind: 'unknown',
            error: failure(
              'outcome_unknown',
              `line ${line}: an earlier run may have created this pet; not sent again (use --retry-unknown)`,
              1,
            ),
          },
        };
      case 'repeat-failure':
        return {
          result: {
            line,
            kind: 'failed',
            error: previous?.error
              ? { ...previous.error, exitCode: 1 }
              : failure('failed_before', `line ${line}: failed on an earlier run`, 1),
          },
        };
      case 'changed':
        return {
          result: {
            line,
            kind: 'failed',
            error: failure(
              'input_changed',
              `line ${line} differs from the run recorded in ${options.journal.path}; not sent`,
              2,
            ),
          },
        };
    }
  };

  const end = await runBatch({
    items: options.records,
    concurrency: options.concurrency,
    work,
    emit: (_record, result) => {
      tally[result.kind]++;
      deps.report(result);
    },
    stop: deps.stop,
  });
  const stoppedBy = end.stoppedBy;
  if (stoppedBy !== undefined && !(stoppedBy instanceof PetsError)) throw stoppedBy;
  return stoppedBy ? { ...tally, stoppedBy } : tally;
}
