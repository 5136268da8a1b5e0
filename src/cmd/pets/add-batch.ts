import type { NewPet, Pet } from '../../api/contract.js';
import { mayHaveCreated } from '../../api/create-outcome.js';
import type { InputRecord } from '../../batch/input/index.js';
import type { Journal, PreviousRecord } from '../../batch/journal.js';
import type { KeyApi } from '../shared/deps.js';
import { planRecord, recordNamer, type RecordPlan } from '../../batch/plan.js';
import { readAhead } from '../../batch/read-ahead.js';
import { runBatch, type WorkResult } from '../../batch/run-batch.js';
import {
  AuthError,
  ForbiddenError,
  InterruptedError,
  JournalError,
  NetworkError,
  PetsError,
  RateLimitError,
  ServerUnavailableError,
  errorJson,
  ownErrorJson,
  type ErrorJson,
} from '../../core/errors.js';

/** What became of one input record, reported in input order. `sent`: a create left for it. */
export type RecordResult =
  | { line: number; kind: 'created'; pet: Pet; sent: true }
  | { line: number; kind: 'skipped'; pet: Pet; sent?: false }
  | { line: number; kind: 'failed'; error: ErrorJson; sent: boolean }
  | { line: number; kind: 'unknown'; error: ErrorJson; sent: boolean }
  | { line: number; kind: 'notSent'; error: ErrorJson; sent?: false };

/** How many records ended each way; `notSent`: the run stopped before sending them (an
 * interrupt, a limit, a closed stdout). */
export type BatchTally = Record<RecordResult['kind'], number>;

export interface AddBatchResult extends BatchTally {
  /** Why the run ended before the input did. */
  stoppedBy?: PetsError;
  /** The rest of the input was left unread (a signal stopped the run). */
  unread?: true;
}

export interface AddBatchOptions {
  records: AsyncIterable<InputRecord>;
  journal: Journal;
  retryUnknown: boolean;
  concurrency: number;
}

export interface AddBatchDeps extends KeyApi {
  /** Cancels requests on the wire (the grace period after Ctrl-C is over). */
  signal: AbortSignal;
  /** Stops starting new records (Ctrl-C). */
  stop: AbortSignal;
  report(result: RecordResult): void;
}

/** A record with its name in the journal, given as the read-ahead meets it. */
type NamedRecord = InputRecord & { name?: string };

// Records read ahead of the workers: how many creates are still to come is known that far,
// and the rate gate lets short processes on the key have their share of a window by it.
const READ_AHEAD = 64;

// The server failing this many creates in a row is down, not picky: stop instead of
// piling up records whose fate is unknown.
const MAX_UNKNOWN_IN_A_ROW = 3;

/**
 * Creates the records of a batch, each at most once across runs and crashes: a create's
 * intent is in the journal, on disk, when the rate gate lets it go and before it leaves, so a
 * run killed at any moment leaves each record created, failed, or unknown (held back on resume), never to be sent twice.
 */
export async function addBatch(
  options: AddBatchOptions,
  deps: AddBatchDeps,
): Promise<AddBatchResult> {
  const tally: BatchTally = { created: 0, failed: 0, skipped: 0, unknown: 0, notSent: 0 };
  const { journal, retryUnknown } = options;
  const nameOf = recordNamer(journal);
  const sender = new RecordSender(journal, deps);

  const work = async (
    record: NamedRecord,
    halted: AbortSignal,
  ): Promise<WorkResult<RecordResult>> => {
    const { line, pet } = record;
    if (!pet) {
      const error = ownErrorJson('invalid_record', `line ${line}: ${record.problem}`, 2);
      return { result: { line, kind: 'failed', error, sent: false } };
    }
    const key = record.name!;
    const previous = journal.previous(key);
    const plan = planRecord(previous, retryUnknown);
    if (plan === 'send') return sender.send(line, key, pet, halted);
    return { result: earlierOutcome(plan, line, pet, previous) };
  };

  // Each record is named as the read-ahead meets it, in input order, before any worker
  // takes it; the read-ahead counts the creates still to come for the rate gate.
  const toSend = (record: NamedRecord): boolean =>
    record.pet !== undefined &&
    planRecord(journal.previous((record.name = nameOf(record.pet))), retryUnknown) === 'send';

  const end = await runBatch({
    items: readAhead(options.records, READ_AHEAD, toSend, (count) => deps.gate.expect(count)),
    concurrency: options.concurrency,
    work,
    emit: (_record, result) => {
      tally[result.kind]++;
      deps.report(result);
    },
    notDone: (record): RecordResult => ({
      line: record.line,
      kind: 'notSent',
      error: ownErrorJson('not_sent', `line ${record.line}: not sent: the run stopped first`, 1),
    }),
    stop: deps.stop,
  });
  const stoppedBy = end.stoppedBy;
  if (stoppedBy !== undefined && !(stoppedBy instanceof PetsError)) throw stoppedBy;
  return { ...tally, ...(stoppedBy ? { stoppedBy } : {}), ...(end.unread ? { unread: true } : {}) };
}

/** The result of a record this run does not send, from what an earlier run left of it. */
function earlierOutcome(
  plan: Exclude<RecordPlan, 'send'>,
  line: number,
  pet: NewPet,
  previous: PreviousRecord | undefined,
): RecordResult {
  switch (plan) {
    case 'skip-created':
      return {
        line,
        kind: 'skipped',
        pet: { id: previous?.outcome === 'created' ? previous.id : 0n, ...pet },
      };
    case 'hold-unknown':
      return {
        line,
        kind: 'unknown',
        sent: false,
        error: ownErrorJson(
          'outcome_unknown',
          `line ${line}: an earlier run may have created this pet; not sent again (check with \`pets list\`, then use --retry-unknown)`,
          1,
        ),
      };
    case 'repeat-failure':
      return {
        line,
        kind: 'failed',
        sent: false,
        error:
          previous?.outcome === 'failed' && previous.error
            ? { ...previous.error, exitCode: 1 }
            : ownErrorJson('failed_before', `line ${line}: failed on an earlier run`, 1),
      };
  }
}

/** Sends one record's create, its intent journaled first, and journals what became of it. */
class RecordSender {
  private unknownInARow = 0;

  constructor(
    private readonly journal: Journal,
    private readonly deps: Pick<AddBatchDeps, 'api' | 'signal' | 'stop'>,
  ) {}

  /** `halted`: the run has stopped (Ctrl-C, or a stop another record met): send nothing more. */
  async send(
    line: number,
    key: string,
    pet: NewPet,
    halted: AbortSignal,
  ): Promise<WorkResult<RecordResult>> {
    const { journal } = this;
    // Whether the create left, or may have: a record refused and then stopped was sent.
    let left = false;
    try {
      const created = await this.deps.api.createPet(pet, {
        left: () => (left = true),
        signal: this.deps.signal,
        stopSending: this.deps.stop,
        halted,
        // When the rate gate lets it go: the intent is written and synced (one fdatasync
        // shared with the creates let go with it), and only then is the record sent. If this
        // fails, the record is not sent. An intent says the record may have left, not that
        // it did: a go that took long to act on waits again, and a stop may come meanwhile.
        beforeSend: async () => {
          journal.intend(key, line);
          await journal.durable();
        },
      });
      this.unknownInARow = 0;
      return settled(() => journal.settle(key, line, { outcome: 'created', id: created.id }), {
        line,
        kind: 'created',
        pet: created,
        sent: true,
      });
    } catch (error) {
      return this.failed(line, key, error, left);
    }
  }

  private failed(
    line: number,
    key: string,
    error: unknown,
    left: boolean,
  ): WorkResult<RecordResult> {
    const { journal } = this;
    // The journal cannot be written: the record was not sent, and nothing more is written.
    // Anything but a PetsError is unexpected: it ends the run, for main to report.
    if (error instanceof JournalError || !(error instanceof PetsError)) throw error;
    // These end the run with the record not created: its intent without an outcome holds it
    // as unknown on resume only if the request may have left; otherwise the outcome says
    // it failed in a way that retrying fixes.
    if (
      error instanceof AuthError ||
      error instanceof ForbiddenError ||
      error instanceof RateLimitError ||
      error instanceof ServerUnavailableError ||
      ((error instanceof InterruptedError || error instanceof NetworkError) &&
        !mayHaveCreated(error))
    ) {
      const reported = refusedJson(line, error, left);
      // The stop's own message (its count of requests sent) is the run's, said once at the end.
      const settle = () =>
        journal.settle(key, line, { outcome: 'failed', retryable: true, error: reported });
      // Sent and refused (a 429 the run stopped on, a 403): it failed, it is not "not sent".
      if (left)
        return settled(settle, { line, kind: 'failed', error: reported, sent: true }, error);
      settle();
      throw error;
    }
    if (mayHaveCreated(error)) {
      const reported = {
        ...errorJson(error),
        code: 'outcome_unknown',
        // The client has said so of every failure but an interrupt.
        message:
          error instanceof InterruptedError
            ? `${error.message} (the pet may have been created)`
            : error.message,
      };
      this.unknownInARow++;
      const stop =
        error instanceof InterruptedError || this.unknownInARow >= MAX_UNKNOWN_IN_A_ROW
          ? error
          : undefined;
      return settled(
        () => journal.settle(key, line, { outcome: 'unknown', error: reported }),
        { line, kind: 'unknown', error: reported, sent: true },
        stop,
      );
    }
    this.unknownInARow = 0;
    return settled(
      () =>
        journal.settle(key, line, { outcome: 'failed', retryable: false, error: errorJson(error) }),
      { line, kind: 'failed', error: errorJson(error), sent: true },
    );
  }
}

/**
 * A record the run stopped on: its error, as the record's own. One that was sent and refused
 * (429, 503) says so, as the stop's message counts the run's requests and is said at the end.
 */
function refusedJson(line: number, error: PetsError, left: boolean): ErrorJson {
  const json = errorJson(error);
  if (!left || !(error instanceof RateLimitError || error instanceof ServerUnavailableError)) {
    return json;
  }
  const answer = error.status === undefined ? 'refused it' : `answered ${error.status}`;
  return {
    ...json,
    message: `line ${line}: sent, and not created: the server ${answer}, and the run stopped before sending it again`,
  };
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
