import type { PetsApi } from '../../api/client.js';
import type { NewPet, Pet } from '../../api/contract.js';
import type { InputRecord } from '../../batch/input/index.js';
import type { Journal } from '../../batch/journal.js';
import { planRecord } from '../../batch/plan.js';
import { OccurrenceCounter } from '../../batch/record-index.js';
import { recordHash } from '../../batch/record-hash.js';
import { readAhead } from '../../batch/read-ahead.js';
import { runBatch, type WorkResult } from '../../batch/run-batch.js';
import {
  AuthError,
  InterruptedError,
  JournalError,
  NetworkError,
  PetsError,
  RateLimitError,
  ServerError,
  errorJson,
  type ErrorJson,
} from '../../core/errors.js';

/** What became of one input record, reported in input order. */
export type RecordResult =
  | { line: number; kind: 'created'; pet: Pet }
  | { line: number; kind: 'skipped'; pet: Pet }
  | { line: number; kind: 'failed'; error: ErrorJson }
  | { line: number; kind: 'unknown'; error: ErrorJson }
  | { line: number; kind: 'notSent'; error: ErrorJson };

export interface BatchTally {
  created: number;
  failed: number;
  skipped: number;
  unknown: number;
  /** Records the run stopped before sending (an interrupt, a limit, a closed stdout). */
  notSent: number;
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

// Records read ahead of the workers: how many creates are still to come is known that far,
// and the rate gate lets short processes on the key have their share of a window by it.
const READ_AHEAD = 64;

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
 * Creates the records of a batch, each at most once across runs and crashes: a create's
 * intent is in the journal, on disk, when the rate gate lets it go and before it leaves, so a
 * run killed at any moment
 * leaves each record created, failed, or unknown (held back on resume), never to be sent twice.
 */
export async function addBatch(
  options: AddBatchOptions,
  deps: AddBatchDeps,
): Promise<AddBatchResult> {
  const tally: BatchTally = { created: 0, failed: 0, skipped: 0, unknown: 0, notSent: 0 };
  let unknownInARow = 0;
  const { journal } = options;
  // A record is named by its content's hash and its occurrence among identical records, so
  // the names must be given in input order: the read-ahead meets each record once, in that
  // order, before any worker takes it. Naming there rather than in an async generator around
  // the records keeps a layer of promises per record out of the pipeline; that layer let V8's
  // young generation grow with the input.
  // The counter has room up front for the records the journal knows, as an input is mostly
  // those: growing leaves its old arrays behind until a full collection.
  const seen = new OccurrenceCounter(journal.records);
  const nameOf = (pet: NewPet): string => {
    const hash = recordHash(pet);
    return `${hash}.${seen.next(hash)}`;
  };
  // The names of the records read ahead, in input order, which is also the order `work`
  // takes them in: at most the read-ahead's size, so a queue rather than a map per record.
  const names: string[] = [];
  let nextName = 0;
  /** Names a record as the read-ahead meets it; whether it is a create still to send. */
  const toSend = (record: InputRecord): boolean => {
    if (!record.pet) return false;
    const key = nameOf(record.pet);
    names.push(key);
    return planRecord(journal.previous(key), options.retryUnknown) === 'send';
  };
  const takeName = (): string => {
    const key = names[nextName++]!;
    if (nextName > READ_AHEAD) {
      names.splice(0, nextName);
      nextName = 0;
    }
    return key;
  };

  const send = async (
    line: number,
    key: string,
    pet: NewPet,
  ): Promise<WorkResult<RecordResult>> => {
    try {
      const created = await deps.api.createPet(pet, {
        signal: deps.signal,
        stopSending: deps.stop,
        // When the rate gate lets it go: the intent is written and synced (one fdatasync
        // shared with the creates let go with it), and only then is the record sent. If this
        // fails, the record is not sent; a record that waited and never left has no intent.
        beforeSend: async () => {
          journal.intend(key, line);
          await journal.durable();
        },
      });
      unknownInARow = 0;
      const result: RecordResult = { line, kind: 'created', pet: created };
      return settled(
        () => journal.settle(key, line, { outcome: 'created', id: created.id }),
        result,
      );
    } catch (error) {
      // The journal cannot be written: the record was not sent, and nothing more is written.
      if (error instanceof JournalError) throw error;
      // These end the run with the record not created: its intent without an outcome holds it
      // as unknown on resume only if the request may have left; otherwise the outcome says
      // it failed in a way that retrying fixes.
      if (
        (error instanceof InterruptedError && !error.requestSent) ||
        error instanceof AuthError ||
        error instanceof RateLimitError ||
        (error instanceof NetworkError && !error.requestMayHaveArrived) ||
        !(error instanceof PetsError)
      ) {
        if (error instanceof PetsError) {
          journal.settle(key, line, {
            outcome: 'failed',
            retryable: true,
            error: errorJson(error),
          });
        }
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
        unknownInARow++;
        const stop =
          error instanceof InterruptedError || unknownInARow >= MAX_UNKNOWN_IN_A_ROW
            ? error
            : undefined;
        const result: RecordResult = { line, kind: 'unknown', error: reported };
        return settled(
          () => journal.settle(key, line, { outcome: 'unknown', error: reported }),
          result,
          stop,
        );
      }
      unknownInARow = 0;
      const result: RecordResult = { line, kind: 'failed', error: errorJson(error) };
      return settled(
        () =>
          journal.settle(key, line, {
            outcome: 'failed',
            retryable: false,
            error: errorJson(error),
          }),
        result,
      );
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
    const key = takeName();
    const previous = journal.previous(key);
    switch (planRecord(previous, options.retryUnknown)) {
      case 'send':
        return send(line, key, pet);
      case 'skip-created':
        return {
          result: {
            line,
            kind: 'skipped',
            pet: { id: previous?.outcome === 'created' ? previous.id : 0n, ...pet },
          },
        };
      case 'hold-unknown':
        return {
          result: {
            line,
            kind: 'unknown',
            error: failure(
              'outcome_unknown',
              `line ${line}: an earlier run may have created this pet; not sent again (check with \`pets list\`, then use --retry-unknown)`,
              1,
            ),
          },
        };
      case 'repeat-failure':
        return {
          result: {
            line,
            kind: 'failed',
            error:
              previous?.outcome === 'failed' && previous.error
                ? { ...previous.error, exitCode: 1 }
                : failure('failed_before', `line ${line}: failed on an earlier run`, 1),
          },
        };
    }
  };

  const end = await runBatch({
    items: readAhead(options.records, READ_AHEAD, toSend, (count) =>
      deps.api.expectRequests(count),
    ),
    concurrency: options.concurrency,
    work,
    emit: (_record, result) => {
      tally[result.kind]++;
      deps.report(result);
    },
    notDone: (record): RecordResult => ({
      line: record.line,
      kind: 'notSent',
      error: failure('not_sent', `line ${record.line}: not sent: the run stopped first`, 1),
    }),
    stop: deps.stop,
  });
  const stoppedBy = end.stoppedBy;
  if (stoppedBy !== undefined && !(stoppedBy instanceof PetsError)) throw stoppedBy;
  return stoppedBy ? { ...tally, stoppedBy } : tally;
}

/**
 * The result of a record whose outcome is being journaled: when the journal cannot take it
 * (a full disk), the result stands, and the run stops; the record's intent, already on disk,
 * holds it as unknown on resume.
 */
function settled(
  write: () => void,
  result: RecordResult,
  stop?: PetsError,
): WorkResult<RecordResult> {
  try {
    write();
  } catch (error) {
    return { result, stop: error };
  }
  return stop ? { result, stop } : { result };
}
