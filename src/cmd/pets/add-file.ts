import { setMaxListeners } from 'node:events';
import { constants, createReadStream, existsSync, realpathSync, rmSync } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { addAbortSignal, type Readable } from 'node:stream';
import { join } from 'node:path';
import type { AddBatchResult, RecordResult } from './add-batch.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import type { KeyApi } from '../shared/deps.js';
import { PetsError, systemReason, UsageError, type ErrorJson } from '../../core/errors.js';
import type { Column } from '../../output/render.js';
import { defaultConcurrency } from '../../batch/concurrency.js';
import type { InputFormat } from '../../batch/input/format.js';
import type { InputRecord, ReadNotes } from '../../batch/input/index.js';
import type { Journal, JournalPlace, JournalTarget } from '../../batch/journal.js';
import {
  HEAD_RECORDS,
  journalRegistry,
  type JournalRegistry,
  type RegistryEntry,
} from '../../batch/journal-registry.js';
import { fileLock } from '../../core/file-lock.js';
import { configDir } from '../../config/paths.js';
import type { BatchOptions, BatchPlan, RecordSurvey } from '../../batch/plan.js';
import { confirmProtectedProfile } from '../shared/confirm.js';
import type { Session } from '../shared/session.js';
import { resumeCommand } from './add-plan.js';

export interface AddFileFlags {
  file: string;
  format?: InputFormat;
  concurrency?: number;
  journal?: string;
  retryUnknown?: boolean;
  newRun?: boolean;
  yes?: boolean;
  dryRun?: boolean;
  ignoreUnknown?: boolean;
}

// After Ctrl-C, requests already sent get this long to answer before they are cut off
// (and journaled as unknown): within the second in which a signal ends every run.
const GRACE_MS = 800;
// The input is read in chunks this small so that each is done with while still young: a
// chunk held across collections is promoted, and freed only by a full one, so a large file
// would otherwise leave its size in dead chunks.
const READ_CHUNK_BYTES = 16 * 1024;
// The failures table keeps this many rows; the summary still counts them all.
const MAX_FAILURE_ROWS = 1_000;

const FAILURE_COLUMNS: readonly Column<{ line: number; error: ErrorJson }>[] = [
  { title: 'LINE', text: (row) => String(row.line) },
  { title: 'CODE', text: (row) => row.error.code },
  { title: 'MESSAGE', text: (row) => row.error.message, wraps: true },
];

const INVALID_COLUMNS: readonly Column<{ line: number; problem: string }>[] = [
  { title: 'LINE', text: (row) => String(row.line) },
  { title: 'PROBLEM', text: (row) => row.problem, wraps: true },
];

/** `pets add --file`: a paced, resumable batch that creates each record at most once. */
export async function addFromFile(session: Session, flags: AddFileFlags): Promise<void> {
  const fromStdin = flags.file === '-';
  if (fromStdin && !flags.journal && !flags.dryRun) {
    throw new UsageError('--journal <path> is needed when the records come from stdin', {
      hint: 'The journal is what lets a stopped run resume without creating pets twice.',
    });
  }
  // The input's real path names its journal: a link to it, or a path through .., finds the
  // same journal.
  const input = fromStdin ? undefined : await readablePath(flags.file);
  const target = await session.target();
  const asked = batchOptions(session, target, flags, input);
  const resume = resumeCommand(asked);
  // A second signal ends the process at once, in whatever phase: it still says how to go on.
  const onForcedExit = () =>
    session.terminal.stderr.write('notice', {
      code: 'stopped',
      message: `Stopped at once; the journal holds every record sent. Resume with: ${resume}`,
      resume,
    });
  process.once('exit', onForcedExit);
  let finished: { plan: BatchPlan; outcome: AddBatchResult } | undefined;
  try {
    finished = await runPhases(session, target, flags, asked, input);
  } catch (error) {
    // Stopped while reading, planning, asking or in a dry run: the batch's last words all the same.
    if (session.signal.aborted) {
      session.terminal.summary(`stopped before the end (journal: ${asked.journal})`, {
        code: 'batch',
        journal: asked.journal,
      });
      session.terminal.notice(`Stopped early. Resume with: ${resume}`, { code: 'stopped', resume });
    }
    throw error;
  } finally {
    process.off('exit', onForcedExit);
  }
  if (finished) summarize(session, finished.plan, finished.outcome);
}

/** The batch's phases: reading, the journal, a dry run or the question and the import. */
async function runPhases(
  session: Session,
  target: ApiTarget,
  flags: AddFileFlags,
  asked: AskedOptions,
  input: string | undefined,
): Promise<{ plan: BatchPlan; outcome: AddBatchResult } | undefined> {
  const [{ chooseFormat }, { readJournal }, { normalizedOrigin }, { keyFingerprint }, { keyHint }] =
    await Promise.all([
      import('../../batch/input/index.js'),
      import('../../batch/journal.js'),
      import('../../config/base-url.js'),
      import('../../config/key-fingerprint.js'),
      import('../../config/key-hint.js'),
    ]);
  const source = await recordInput(
    session,
    flags.file,
    chooseFormat(flags.file, flags.format),
    flags.ignoreUnknown,
  );
  const options: BatchOptions = {
    ...asked,
    format: source.format,
    ...(source.fromContent ? { formatFromContent: true } : {}),
  };
  const journalTarget = {
    origin: normalizedOrigin(target.baseUrl),
    key: keyFingerprint(target.apiKey),
    profile: target.profile,
    baseUrl: target.baseUrl,
    keyHint: keyHint(target.apiKey),
  };
  const place = input === undefined ? {} : { input };
  if (flags.dryRun) {
    // A dry run reads the journal and writes nothing: no lock, no header, no journal where
    // there was none.
    const journal = readJournal(options.journal, journalTarget, place);
    const others = registryOf(session, journalTarget).entries();
    await refuseRecordsOfOtherRuns(options, source, journal, journalTarget, others, true);
    await dryRun(session, target, options, source, journal);
    return undefined;
  }
  // Opened, bound to its target and locked before anything is asked or sent: a journal that
  // cannot be written, is in use, or belongs elsewhere stops the run with nothing sent.
  const journal = await openRunJournal(session, options, source, journalTarget, place);
  try {
    // Where the records go, on a terminal: by the badge on a protected profile, else a line.
    if (!target.protected) await session.terminal.environmentLine(target);
    await confirmProtectedProfile(session, target, {
      doing: 'Import into',
      action: 'a batch into it',
      nothingDone: 'nothing was sent',
      yes: flags.yes === true,
      stdinBusy: flags.file === '-',
    });
    return await importRecords(session, target, options, source, journal);
  } finally {
    journal.close();
  }
}

type AskedOptions = Omit<BatchOptions, 'format' | 'formatFromContent'>;

/**
 * The real path of the file to read, or why it cannot be read, in the system's words (a
 * missing file, a folder, no permission): exit 2, not a failure of pets's own.
 */
async function readablePath(file: string): Promise<string> {
  try {
    const real = await realpath(file);
    if ((await stat(real)).isDirectory()) throw new UsageError(systemReason('EISDIR'));
    await access(real, constants.R_OK);
    return real;
  } catch (error) {
    const reason = error instanceof UsageError ? error.message : systemReason(error);
    throw new UsageError(`--file ${file} cannot be read: ${reason}`);
  }
}

/** What the run was asked to do, as its plan, dry run and resume command state it. */
function batchOptions(
  session: Session,
  target: ApiTarget,
  flags: AddFileFlags,
  input: string | undefined,
): AskedOptions {
  return {
    profile: target.profile,
    baseUrl: target.baseUrl,
    file: flags.file,
    ...(flags.format ? { formatGiven: flags.format } : {}),
    journal: flags.journal ?? `${input}.pets-journal`,
    ...(flags.journal ? { journalGiven: flags.journal } : {}),
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(session.globals.maxWait !== undefined ? { maxWaitSeconds: session.globals.maxWait } : {}),
    retryUnknown: flags.retryUnknown === true,
    // The resume command prints its output as this run does.
    output: {
      json: session.globals.json,
      ...(session.globals.jq !== undefined ? { jq: session.globals.jq } : {}),
      quiet: session.globals.quiet,
    },
    ...(flags.newRun ? { newRun: true } : {}),
    ...(flags.ignoreUnknown ? { ignoreUnknown: true } : {}),
    guard: { protected: target.protected, yes: flags.yes === true },
  };
}

/**
 * The run's journal (`place`: of its input), opened once no other journal of the target holds
 * its records; then listed for the target. The list is checked and added to under its lock: of
 * two runs started at once on copies of one input, the second finds the first. A journal this
 * run made and then refused is removed.
 */
async function openRunJournal(
  session: Session,
  options: BatchOptions,
  source: RecordInput,
  target: JournalTarget,
  place: JournalPlace,
): Promise<Journal> {
  const [{ openJournal, journalStanding }, { recordNamer }] = await Promise.all([
    import('../../batch/journal.js'),
    import('../../batch/plan.js'),
  ]);
  const existed = existsSync(options.journal);
  const journal = openJournal(options.journal, target, place);
  try {
    const own = realpathSync(options.journal);
    await registryOf(session, target).update(async (listed) => {
      // What no longer holds records drops out: a journal deleted, or no longer this target's,
      // or one that holds none and that no run has open.
      const held = listed.filter((entry) => {
        const stands = entry.journal === own ? 'records' : journalStanding(entry.journal, target);
        return stands === 'records' || (stands === 'none' && journalInUse(entry.journal));
      });
      await refuseRecordsOfOtherRuns(options, source, journal, target, held);
      const nameOf = recordNamer({ records: 0 });
      const head: string[] = [];
      let read = 0;
      for await (const record of await source.comparable()) {
        if (record.pet) head.push(nameOf(record.pet));
        if (++read >= HEAD_RECORDS) break;
      }
      return [...held.filter((entry) => entry.journal !== own), { journal: own, head }];
    });
    return journal;
  } catch (error) {
    if (!existed) rmSync(options.journal, { force: true });
    journal.close();
    throw error;
  }
}

/** Whether a run has the journal open now (its lock is held by a process not provably gone). */
function journalInUse(path: string): boolean {
  try {
    return fileLock(path).heldByOther();
  } catch {
    return false;
  }
}

function registryOf(session: Session, target: JournalTarget): JournalRegistry {
  return journalRegistry(join(configDir(session.env), 'state'), target);
}

/**
 * A run whose journal is new must not send what another journal of the target holds: the same
 * records under another name (a renamed, copied or moved input, or records piped again). Found
 * by content, through the registry of the target's journals, and refused (exit 2) unless
 * --new-run. A run under way on another journal also holds the first records of its input
 * (its entry's head), which it may not have journaled yet. Records from stdin are read once:
 * their first HEAD_RECORDS are compared (RecordInput.comparable).
 */
async function refuseRecordsOfOtherRuns(
  options: BatchOptions,
  source: RecordInput,
  journal: Pick<Journal, 'records' | 'previous'>,
  target: JournalTarget,
  entries: RegistryEntry[],
  dryRun = false,
): Promise<void> {
  if (journal.records > 0 || options.newRun) return;
  const [{ readJournal }, { planRecord, recordNamer }] = await Promise.all([
    import('../../batch/journal.js'),
    import('../../batch/plan.js'),
  ]);
  // A journal not there yet (a dry run's) reads as empty under any name: no real path needed.
  const own = existsSync(options.journal) ? realpathSync(options.journal) : options.journal;
  for (const entry of entries) {
    if (entry.journal === own) continue;
    const other = entry.journal;
    let earlier: Pick<Journal, 'records' | 'previous'>;
    try {
      earlier = readJournal(other, target);
    } catch {
      continue; // gone, or no longer a journal of this target
    }
    // A dry run writes nothing, not even a dead holder's lock away: it reads journals only.
    const head = !dryRun && journalInUse(other) ? new Set(entry.head) : new Set<string>();
    if (earlier.records === 0 && head.size === 0) continue;
    const nameOf = recordNamer(earlier);
    let held = 0;
    let sending = 0;
    for await (const record of await source.comparable()) {
      if (!record.pet) continue;
      const name = nameOf(record.pet);
      const plan = planRecord(earlier.previous(name), false);
      if (plan === 'skip-created' || plan === 'hold-unknown') held++;
      else if (head.has(name)) sending++;
    }
    if (held + sending === 0) continue;
    refuseOverlap(options, other, held, sending);
  }
}

function refuseOverlap(options: BatchOptions, other: string, held: number, sending: number): never {
  const resume = resumeCommand({ ...options, journal: other, journalGiven: other });
  const count = held > 0 ? held : sending;
  const input = options.file === '-' ? 'stdin' : options.file;
  const records = `${count} ${count === 1 ? 'record' : 'records'} of ${input} ${count === 1 ? 'is' : 'are'}`;
  const where =
    held > 0
      ? `already in the journal ${other}, of an earlier run on this profile and key`
      : `being sent by another run on this profile and key, with the journal ${other}`;
  const withInput = `with this ${options.file === '-' ? 'input' : 'file'}: ${resume}`;
  throw new UsageError(`${records} ${where} (--new-run sends them again); nothing was sent`, {
    hint:
      held > 0
        ? `Resume that run ${withInput}`
        : `Wait for that run to end, then resume it ${withInput}`,
  });
}

/** The run's input: its format, and its records, each read from its start. */
interface RecordInput {
  format: InputFormat;
  /** Whether the format was read from the first bytes (stdin, or an unknown extension). */
  fromContent: boolean;
  /** The records; `notes` counts what the readers set aside (ids). */
  records(notes?: ReadNotes): Promise<AsyncIterable<InputRecord>>;
  /** The records compared with other journals: all of a file's, the first HEAD_RECORDS of stdin's. */
  comparable(): Promise<Iterable<InputRecord> | AsyncIterable<InputRecord>>;
}

/**
 * Opens the input of `file` ('-': stdin) in `format`, or, when neither --format nor the
 * extension tells it, in the format its first non-blank byte tells: stdin is read once, so
 * the bytes looked at are kept for the records. Every read ends at the run's stop (a signal):
 * nothing else ends an idle stdin or an endless input.
 */
async function recordInput(
  session: Session,
  file: string,
  format: InputFormat | undefined,
  ignoreUnknown?: boolean,
): Promise<RecordInput> {
  const { readRecords, formatFromContent } = await import('../../batch/input/index.js');
  if (file === '-') {
    const stdin = addAbortSignal(session.signal, session.terminal.stdin as Readable);
    const peeked = format === undefined ? await formatFromContent(stdin) : { format, input: stdin };
    // The ids stdin's reader sets aside: it reads once, for whichever caller asks first.
    const notes: ReadNotes = { ids: 0 };
    const records = readRecords(peeked.input, peeked.format, notes, ignoreUnknown);
    return {
      format: peeked.format,
      fromContent: format === undefined,
      ...stdinRecords(records, notes),
    };
  }
  const open = () =>
    createReadStream(file, { highWaterMark: READ_CHUNK_BYTES, signal: session.signal });
  let found = format;
  if (found === undefined) {
    const stream = open();
    try {
      found = (await formatFromContent(stream)).format;
    } finally {
      stream.destroy();
    }
  }
  const records = async (notes?: ReadNotes) => readRecords(open(), found, notes, ignoreUnknown);
  return { format: found, fromContent: format === undefined, records, comparable: records };
}

/**
 * Records from stdin, read once: the first HEAD_RECORDS are kept as they are read, to be
 * compared with other journals before anything is sent (their content is what stdin is known
 * by), then handed to the run ahead of the rest.
 */
function stdinRecords(
  all: AsyncIterable<InputRecord>,
  readNotes: ReadNotes,
): Pick<RecordInput, 'records' | 'comparable'> {
  const reader = all[Symbol.asyncIterator]();
  let head: Promise<InputRecord[]> | undefined;
  const readHead = () =>
    (head ??= (async () => {
      const first: InputRecord[] = [];
      for (let next; first.length < HEAD_RECORDS && !(next = await reader.next()).done;) {
        first.push(next.value);
      }
      return first;
    })());
  let taken = false;
  async function* records(notes?: ReadNotes): AsyncIterable<InputRecord> {
    try {
      yield* await readHead();
      for (let next = await reader.next(); !next.done; next = await reader.next()) yield next.value;
    } finally {
      if (notes) notes.ids += readNotes.ids;
      await reader.return?.();
    }
  }
  return {
    records: async (notes) => {
      if (taken) throw new Error('the records of stdin are read once');
      taken = true;
      return records(notes);
    },
    comparable: readHead,
  };
}

/** One notice for the records that carried an id: the server assigns ids, so they were left out. */
function noticeIgnoredIds(session: Session, notes: ReadNotes): void {
  if (notes.ids === 0) return;
  const records = notes.ids === 1 ? '1 record carries an id' : `${notes.ids} records carry an id`;
  session.terminal.notice(`${records}; ids are ignored, as the server assigns them`, {
    code: 'ids_ignored',
    count: notes.ids,
  });
}

/**
 * The run's plan: the input read through against the journal, when it can be read twice
 * (`survey`: a file), and what is known of the key's quota; `ask` (a dry run): when nothing is
 * known of it yet, one cheap GET tells the window, as `pets quota` does.
 */
async function makePlan(
  session: Session,
  options: BatchOptions,
  source: RecordInput,
  journal: Pick<Journal, 'records' | 'previous'>,
  { api, gate }: KeyApi,
  run: { survey: boolean; ask: boolean; notes?: ReadNotes },
): Promise<BatchPlan> {
  const { surveyRecords, quotaOutlook } = await import('../../batch/plan.js');
  const records: RecordSurvey | undefined = run.survey
    ? await surveyRecords(await source.records(run.notes), journal, options.retryUnknown)
    : undefined;
  const outlook = quotaOutlook(gate.snapshot, session.clock.now());
  if (!run.ask || outlook.kind !== 'unknown' || outlook.blockedUntilMs !== undefined) {
    return { options, records, quota: outlook };
  }
  const before = gate.sentCount;
  try {
    await api.listPets({ limit: 1 }, { signal: session.signal });
  } catch (error) {
    if (!(error instanceof PetsError)) throw error;
    await session.terminal.warn(`could not learn the quota: ${error.message}`);
  }
  // What the gate let go, not what was tried: a GET that never connected was not sent.
  const sent = gate.sentCount - before;
  const asked = quotaOutlook(gate.snapshot, session.clock.now(), { asked: sent > 0 });
  return { options, records, quota: { ...asked, askedRequests: sent } };
}

/** --dry-run: reads and checks every record, and says what a run would do, sending no create. */
async function dryRun(
  session: Session,
  target: ApiTarget,
  options: BatchOptions,
  source: RecordInput,
  journal: Pick<Journal, 'records' | 'previous'>,
): Promise<void> {
  await session.terminal.environmentLine(target);
  const notes: ReadNotes = { ids: 0 };
  const plan = await makePlan(session, options, source, journal, await session.api(target), {
    survey: true,
    ask: true,
    notes,
  });
  noticeIgnoredIds(session, notes);
  const now = session.clock.now();
  const { planFields, planJson } = await import('./add-plan.js');
  if (session.terminal.mode === 'json') {
    await session.terminal.printJson(planJson(plan, now));
  } else {
    await session.terminal.printFields(planFields(plan, now));
    const invalid = plan.records?.invalidRecords ?? [];
    if (invalid.length > 0) {
      session.terminal.print('\n');
      await session.terminal.printRows(INVALID_COLUMNS, invalid);
    }
  }
  // As a real run would: records that cannot be sent make it exit 1.
  if ((plan.records?.invalid ?? 0) > 0) session.exitCode = 1;
}

async function importRecords(
  session: Session,
  target: ApiTarget,
  options: BatchOptions,
  source: RecordInput,
  journal: Journal,
): Promise<{ plan: BatchPlan; outcome: AddBatchResult }> {
  const { addBatch } = await import('./add-batch.js');
  // The plan reads the input ahead of the run only for a person watching: a pipe gets its
  // records read once.
  const watched = session.terminal.showsProgress && options.file !== '-';
  const progress = await session.terminal.progressLine(session.clock);
  const keyApi = await session.api(target, progress?.waiter(), { batch: true });
  const { gate } = keyApi;
  const plan = await makePlan(session, options, source, journal, keyApi, {
    survey: watched,
    ask: false,
  });
  if (progress) {
    const { startLine } = await import('./add-plan.js');
    session.terminal.notice(startLine(plan, session.clock.now()), { code: 'plan' });
    progress.start({ toSend: plan.records?.toSend }, () => gate.snapshot);
    session.terminal.stderr.keepBelow(progress);
  }
  const concurrency = options.concurrency ?? defaultConcurrency(gate.snapshot);
  session.stopsOnClosedOutput = true;

  const cutOff = new AbortController();
  // Every request in flight listens to it; more than ten is the point of a batch, not a leak.
  setMaxListeners(0, cutOff.signal);
  const onStop = () => setTimeout(() => cutOff.abort(), GRACE_MS).unref();
  session.signal.addEventListener('abort', onStop, { once: true });

  const failures: Array<{ line: number; error: ErrorJson }> = [];
  const { renderBatchLine } = await import('../../output/render-json.js');
  const report = (result: RecordResult) => {
    progress?.advance(result);
    if (session.terminal.mode === 'json') {
      session.terminal.printJsonText(renderBatchLine(result, result.kind === 'skipped'));
    } else if (
      'error' in result &&
      result.kind !== 'notSent' &&
      failures.length < MAX_FAILURE_ROWS
    ) {
      failures.push({ line: result.line, error: result.error });
    }
  };

  let outcome: AddBatchResult;
  const notes: ReadNotes = { ids: 0 };
  try {
    outcome = await addBatch(
      {
        records: await source.records(notes),
        journal,
        retryUnknown: options.retryUnknown,
        concurrency,
      },
      { ...keyApi, signal: cutOff.signal, stop: session.signal, report },
    );
  } finally {
    session.terminal.stderr.keepBelow(undefined);
    progress?.end();
    session.signal.removeEventListener('abort', onStop);
  }

  if (session.terminal.mode !== 'json' && failures.length > 0) {
    await session.terminal.printRows(FAILURE_COLUMNS, failures);
  }
  noticeIgnoredIds(session, notes);
  return { plan, outcome };
}

/** The last words of a run: what became of the records, and how to go on. */
function summarize(session: Session, plan: BatchPlan, outcome: AddBatchResult): void {
  const { created, failed, skipped, unknown, notSent, stoppedBy, unread } = outcome;
  const resume = resumeCommand(plan.options);
  const journal = plan.options.journal;
  session.terminal.summary(
    `created ${created}, failed ${failed}, skipped ${skipped}, unknown ${unknown}` +
      `${notSent > 0 || stoppedBy ? `, not sent ${notSent}` : ''}` +
      `${unread ? ' and the rest of the input' : ''} (journal: ${journal})`,
    { code: 'batch', created, failed, skipped, unknown, notSent, journal },
  );
  if (stoppedBy || notSent > 0) {
    session.terminal.notice(`Stopped early. Resume with: ${resume}`, { code: 'stopped', resume });
  } else if (unknown > 0) {
    // Records whose create may have happened: to be checked, then sent again.
    const again = resumeCommand({ ...plan.options, retryUnknown: true });
    session.terminal.notice(
      plan.options.retryUnknown
        ? 'Check the unknown ones with `pets list`.'
        : `Check the unknown ones with \`pets list\`; to send them again anyway: ${again}`,
      { code: 'unknown_outcomes', resume: again },
    );
  }
  if (stoppedBy) throw stoppedBy;
  if (failed > 0 || unknown > 0 || notSent > 0) session.exitCode = 1;
}
