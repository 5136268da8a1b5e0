import { setMaxListeners } from 'node:events';
import { createReadStream, existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import type { AddBatchResult, RecordResult } from './add-batch.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import type { PetsApi } from '../../api/client.js';
import { PetsError, UsageError, type ErrorJson } from '../../core/errors.js';
import type { Column } from '../../output/render.js';
import { defaultConcurrency } from '../../batch/concurrency.js';
import type { InputFormat } from '../../batch/input/format.js';
import type { Journal } from '../../batch/journal.js';
import type { BatchOptions, BatchPlan, RecordSurvey } from '../../batch/plan.js';
import { confirmProtectedProfile } from '../shared/confirm.js';
import { ProgressLine } from '../../terminal/progress.js';
import type { NoticeFields, Session } from '../shared/session.js';
import { resumeCommand } from './add-plan.js';

export interface AddFileFlags {
  file: string;
  format?: InputFormat;
  concurrency?: number;
  journal?: string;
  retryUnknown?: boolean;
  yes?: boolean;
  dryRun?: boolean;
}

/**
 * A batch into a protected profile needs a person to type the profile's name, or --yes
 * where no one can be asked (a pipe, --no-input, records on stdin).
 */
async function confirmProtected(
  session: Session,
  target: ApiTarget,
  recordsOnStdin: boolean,
  yes: boolean,
) {
  if (!target.protected) return;
  await session.protectedBadge(target);
  await confirmProtectedProfile(session, {
    profile: target.profile,
    question: `Import into protected profile "${target.profile}" (${new URL(target.baseUrl).host})?`,
    action: 'a batch into it',
    nothingDone: 'nothing was sent',
    yes,
    stdinBusy: recordsOnStdin,
  });
}

// After Ctrl-C, requests already sent get this long to answer before they are cut off
// (and journaled as unknown).
const GRACE_MS = 5_000;
// The input is read in chunks this small so that each is done with while still young: a
// chunk held across collections is promoted, and freed only by a full one, so a large file
// would otherwise leave its size in dead chunks.
const READ_CHUNK_BYTES = 16 * 1024;
// The failures table keeps this many rows; the summary still counts them all.
const MAX_FAILURE_ROWS = 1_000;

const FAILURE_COLUMNS: readonly Column<{ line: number; error: ErrorJson }>[] = [
  { title: 'LINE', text: (row) => String(row.line) },
  { title: 'CODE', text: (row) => row.error.code },
  { title: 'MESSAGE', text: (row) => row.error.message },
];

const INVALID_COLUMNS: readonly Column<{ line: number; problem: string }>[] = [
  { title: 'LINE', text: (row) => String(row.line) },
  { title: 'PROBLEM', text: (row) => row.problem },
];

/** `pets add --file`: a paced, resumable batch that creates each record at most once. */
export async function addFromFile(session: Session, flags: AddFileFlags): Promise<void> {
  const fromStdin = flags.file === '-';
  if (fromStdin && !flags.journal && !flags.dryRun) {
    throw new UsageError('--journal <path> is needed when the records come from stdin', {
      hint: 'The journal is what lets a stopped run resume without creating pets twice.',
    });
  }
  if (!fromStdin) {
    await access(flags.file).catch(() => {
      throw new UsageError(`cannot read ${flags.file}`);
    });
  }
  const [{ chooseFormat }, { openJournal }, { normalizedOrigin }, { keyFingerprint }] =
    await Promise.all([
      import('../../batch/input/index.js'),
      import('../../batch/journal.js'),
      import('../../config/base-url.js'),
      import('../../config/key-fingerprint.js'),
    ]);
  const target = await session.target();
  const options: BatchOptions = {
    profile: target.profile,
    baseUrl: target.baseUrl,
    file: flags.file,
    format: chooseFormat(flags.file, flags.format),
    ...(flags.format ? { formatGiven: flags.format } : {}),
    journal: flags.journal ?? `${flags.file}.pets-journal`,
    ...(flags.journal ? { journalGiven: flags.journal } : {}),
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(session.globals.maxWait !== undefined ? { maxWaitSeconds: session.globals.maxWait } : {}),
    retryUnknown: flags.retryUnknown === true,
  };
  const journalTarget = {
    origin: normalizedOrigin(target.baseUrl),
    key: keyFingerprint(target.apiKey),
    profile: target.profile,
    baseUrl: target.baseUrl,
  };
  if (flags.dryRun) {
    // A dry run leaves no journal behind where there was none.
    const journal = existsSync(options.journal)
      ? openJournal(options.journal, journalTarget)
      : undefined;
    try {
      await dryRun(session, target, options, journal ?? EMPTY_JOURNAL);
    } finally {
      journal?.close();
    }
    return;
  }
  // Opened, bound to its target and locked before anything is asked or sent: a journal that
  // cannot be written, is in use, or belongs elsewhere stops the run with nothing sent.
  const journal = openJournal(options.journal, journalTarget);
  const resume = resumeCommand(options);
  // A second Ctrl-C ends the process at once: it still says how to go on.
  const onForcedExit = () =>
    session.stderr.write('notice', {
      code: 'stopped',
      message: `Stopped at once; the journal holds every record sent. Resume with: ${resume}`,
      resume,
    });
  process.once('exit', onForcedExit);
  try {
    await confirmProtected(session, target, fromStdin, flags.yes === true);
    await importRecords(session, target, options, journal);
  } finally {
    process.off('exit', onForcedExit);
    journal.close();
  }
}

/** A journal with nothing in it, for a dry run where none exists yet. */
const EMPTY_JOURNAL: Pick<Journal, 'records' | 'previous'> = {
  records: 0,
  previous: () => undefined,
};

/** The records of the run's input, read afresh from its start. */
async function inputRecords(session: Session, options: BatchOptions) {
  const { readRecords } = await import('../../batch/input/index.js');
  return readRecords(
    options.file === '-'
      ? session.deps.io.stdin
      : createReadStream(options.file, { highWaterMark: READ_CHUNK_BYTES }),
    options.format,
  );
}

/**
 * The run's plan: the input read through against the journal, when it can be read twice
 * (`survey`: a file), and what is known of the key's quota.
 */
async function makePlan(
  session: Session,
  options: BatchOptions,
  journal: Pick<Journal, 'records' | 'previous'>,
  api: PetsApi,
  survey: boolean,
  ask: boolean,
): Promise<BatchPlan & { askFailed?: PetsError }> {
  const { surveyRecords, quotaOutlook } = await import('../../batch/plan.js');
  const records: RecordSurvey | undefined = survey
    ? await surveyRecords(await inputRecords(session, options), journal, options.retryUnknown)
    : undefined;
  const now = session.deps.clock.now;
  let state = api.rateLimitState();
  let outlook = quotaOutlook(state, now());
  let askFailed: PetsError | undefined;
  if (ask && outlook.kind === 'unknown' && outlook.blockedUntilMs === undefined) {
    // Nothing known yet: one cheap GET tells the window, as `pets quota` does.
    try {
      await api.listPets({ limit: 1 }, { signal: session.deps.signal });
    } catch (error) {
      if (!(error instanceof PetsError)) throw error;
      askFailed = error;
    }
    state = api.rateLimitState();
    outlook = quotaOutlook(state, now(), { asked: true });
  }
  return {
    options,
    ...(records ? { records } : {}),
    quota: outlook,
    ...(askFailed ? { askFailed } : {}),
  };
}

/** --dry-run: reads and checks every record, and says what a run would do, sending no create. */
async function dryRun(
  session: Session,
  target: ApiTarget,
  options: BatchOptions,
  journal: Pick<Journal, 'records' | 'previous'>,
): Promise<void> {
  await session.environmentLine(target);
  const api = await session.api(target);
  const plan = await makePlan(session, options, journal, api, true, true);
  const now = session.deps.clock.now();
  const { planFields, planJson } = await import('./add-plan.js');
  if (plan.askFailed) {
    await session.warn(`could not learn the quota: ${plan.askFailed.message}`);
  }
  if (session.mode === 'json') {
    await session.printJson(planJson(plan, now));
  } else {
    const { renderFields, renderRows } = await import('../../output/render.js');
    const colors = await session.stdoutColors();
    session.print(renderFields(planFields(plan, now), session.mode, colors));
    const invalid = plan.records?.invalidRecords ?? [];
    if (invalid.length > 0) {
      session.print('\n');
      session.print(
        await renderRows(INVALID_COLUMNS, invalid, session.mode, colors, session.tableWidth),
      );
    }
  }
  // As a real run would: records that cannot be sent make it exit 1.
  if ((plan.records?.invalid ?? 0) > 0) session.exitCode = 1;
}

async function importRecords(
  session: Session,
  target: ApiTarget,
  options: BatchOptions,
  journal: Journal,
): Promise<void> {
  const { addBatch } = await import('./add-batch.js');
  // The plan reads the input ahead of the run only for a person watching: a pipe gets its
  // records read once.
  const watched = session.showsProgress && options.file !== '-';
  const progress = session.showsProgress
    ? new ProgressLine(session.deps.io.stderr, session.deps.clock)
    : undefined;
  const api = await session.api(target, progress?.waiter(), { batch: true });
  const plan = await makePlan(session, options, journal, api, watched, false);
  if (progress) {
    const { startLine } = await import('./add-plan.js');
    session.notice(startLine(plan, session.deps.clock.now()), { code: 'plan' });
    progress.start({ total: plan.records?.total, toSend: plan.records?.toSend }, () =>
      api.rateLimitState(),
    );
  }
  const concurrency = options.concurrency ?? defaultConcurrency(api.rateLimitState());
  session.stopsOnClosedOutput = true;

  const cutOff = new AbortController();
  // Every request in flight listens to it; more than ten is the point of a batch, not a leak.
  setMaxListeners(0, cutOff.signal);
  const onStop = () => setTimeout(() => cutOff.abort(), GRACE_MS).unref();
  session.deps.signal.addEventListener('abort', onStop, { once: true });

  const failures: Array<{ line: number; error: ErrorJson }> = [];
  const { renderBatchLine } = await import('../../output/render-json.js');
  const report = (result: RecordResult) => {
    progress?.advance(result);
    if (session.mode === 'json') {
      session.printJsonText(renderBatchLine(result, result.kind === 'skipped'));
    } else if (
      'error' in result &&
      result.kind !== 'notSent' &&
      failures.length < MAX_FAILURE_ROWS
    ) {
      failures.push({ line: result.line, error: result.error });
    }
  };

  let outcome: AddBatchResult;
  try {
    outcome = await addBatch(
      {
        records: await inputRecords(session, options),
        journal,
        retryUnknown: options.retryUnknown,
        concurrency,
      },
      { api, signal: cutOff.signal, stop: session.deps.signal, report },
    );
  } finally {
    progress?.clear();
    session.deps.signal.removeEventListener('abort', onStop);
  }

  if (session.mode !== 'json' && failures.length > 0) {
    const { renderRows } = await import('../../output/render.js');
    const colors = await session.stdoutColors();
    session.print(
      await renderRows(FAILURE_COLUMNS, failures, session.mode, colors, session.tableWidth),
    );
  }
  summarize(session, plan, outcome);
}

/** What to do about records whose create may have happened: check, then send them again. */
function unknownAdvice(options: BatchOptions): [string, NoticeFields] {
  const again = resumeCommand({ ...options, retryUnknown: true });
  const message = options.retryUnknown
    ? 'Check the unknown ones with `pets list`.'
    : `Check the unknown ones with \`pets list\`; to send them again anyway: ${again}`;
  return [message, { code: 'unknown_outcomes', resume: again }];
}

/** The last words of a run: what became of the records, and how to go on. */
function summarize(session: Session, plan: BatchPlan, outcome: AddBatchResult): void {
  const { created, failed, skipped, unknown, notSent, stoppedBy } = outcome;
  const resume = resumeCommand(plan.options);
  const journal = plan.options.journal;
  session.summary(
    `created ${created}, failed ${failed}, skipped ${skipped}, unknown ${unknown}` +
      `${notSent > 0 || stoppedBy ? `, not sent ${notSent}` : ''} (journal: ${journal})`,
    { code: 'batch', created, failed, skipped, unknown, notSent, journal },
  );
  if (stoppedBy || notSent > 0) {
    session.notice(`Stopped early. Resume with: ${resume}`, { code: 'stopped', resume });
  } else if (unknown > 0) {
    session.notice(...unknownAdvice(plan.options));
  }
  if (stoppedBy) throw stoppedBy;
  if (failed > 0 || unknown > 0 || notSent > 0) session.exitCode = 1;
}
