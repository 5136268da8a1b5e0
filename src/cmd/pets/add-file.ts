import { setMaxListeners } from 'node:events';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { countLines } from '../../batch/input/lines.js';
import type { RecordResult } from './add-batch.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import { UsageError, type ErrorJson } from '../../core/errors.js';
import type { Column } from '../../output/render.js';
import { defaultConcurrency } from '../../batch/concurrency.js';
import { confirmProtectedProfile } from '../shared/confirm.js';
import { ProgressLine } from '../../terminal/progress.js';
import type { Session } from '../shared/session.js';

export interface AddFileFlags {
  file: string;
  format?: string;
  concurrency?: number;
  journal?: string;
  retryUnknown?: boolean;
  yes?: boolean;
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

/** `pets add --file`: a paced, resumable batch that creates each record at most once. */
export async function addFromFile(session: Session, flags: AddFileFlags): Promise<void> {
  const fromStdin = flags.file === '-';
  if (fromStdin && !flags.journal) {
    throw new UsageError('--journal <path> is needed when the records come from stdin', {
      hint: 'The journal is what lets a stopped run resume without creating pets twice.',
    });
  }
  if (!fromStdin) {
    await access(flags.file).catch(() => {
      throw new UsageError(`cannot read ${flags.file}`);
    });
  }
  const journalPath = flags.journal ?? `${flags.file}.pets-journal`;
  const [
    { chooseFormat, readRecords },
    { openJournal },
    { addBatch },
    { normalizedOrigin },
    { keyFingerprint },
  ] = await Promise.all([
    import('../../batch/input/index.js'),
    import('../../batch/journal.js'),
    import('./add-batch.js'),
    import('../../config/base-url.js'),
    import('../../config/key-fingerprint.js'),
  ]);
  const format = chooseFormat(flags.file, flags.format);
  const target = await session.target();
  // Opened, bound to its target and locked before anything is asked or sent: a journal that
  // cannot be written, is in use, or belongs elsewhere stops the run with nothing sent.
  const journal = openJournal(journalPath, {
    origin: normalizedOrigin(target.baseUrl),
    key: keyFingerprint(target.apiKey),
    profile: target.profile,
    baseUrl: target.baseUrl,
  });
  const resume = resumeCommand(flags, target.profile, fromStdin);
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
    await importRecords(session, flags, target, {
      journal,
      journalPath,
      format,
      readRecords,
      addBatch,
      resume,
      fromStdin,
    });
  } finally {
    process.off('exit', onForcedExit);
    journal.close();
  }
}

interface ImportParts {
  journal: import('../../batch/journal.js').Journal;
  journalPath: string;
  format: import('../../batch/input/index.js').InputFormat;
  readRecords: typeof import('../../batch/input/index.js').readRecords;
  addBatch: typeof import('./add-batch.js').addBatch;
  resume: string;
  fromStdin: boolean;
}

async function importRecords(
  session: Session,
  flags: AddFileFlags,
  target: ApiTarget,
  parts: ImportParts,
): Promise<void> {
  const { journal, journalPath, format, readRecords, addBatch, resume, fromStdin } = parts;
  // The total only feeds the progress line, so the file is read twice only when it shows.
  const total =
    !session.showsProgress || fromStdin || format === 'json'
      ? undefined
      : (await countLines(createReadStream(flags.file))) - (format === 'csv' ? 1 : 0);
  const progress = session.showsProgress
    ? new ProgressLine(session.deps.io.stderr, session.deps.clock, total)
    : undefined;
  const api = await session.api(target, progress?.waiter(), { batch: true });
  const concurrency = flags.concurrency ?? defaultConcurrency(api.rateLimitState());
  session.stopsOnClosedOutput = true;

  const cutOff = new AbortController();
  // Every request in flight listens to it; more than ten is the point of a batch, not a leak.
  setMaxListeners(0, cutOff.signal);
  const onStop = () => setTimeout(() => cutOff.abort(), GRACE_MS).unref();
  session.deps.signal.addEventListener('abort', onStop, { once: true });

  const failures: Array<{ line: number; error: ErrorJson }> = [];
  const { renderBatchLine } = await import('../../output/render-json.js');
  const report = (result: RecordResult) => {
    progress?.advance(result.kind === 'skipped');
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

  let outcome;
  try {
    outcome = await addBatch(
      {
        records: readRecords(
          fromStdin
            ? session.deps.io.stdin
            : createReadStream(flags.file, { highWaterMark: READ_CHUNK_BYTES }),
          format,
        ),
        journal,
        retryUnknown: flags.retryUnknown === true,
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
  const { created, failed, skipped, unknown, notSent, stoppedBy } = outcome;
  session.summary(
    `created ${created}, failed ${failed}, skipped ${skipped}, unknown ${unknown}` +
      `${notSent > 0 || stoppedBy ? `, not sent ${notSent}` : ''} (journal: ${journalPath})`,
    { code: 'batch', created, failed, skipped, unknown, notSent, journal: journalPath },
  );
  if (stoppedBy || notSent > 0) {
    session.notice(`Stopped early. Resume with: ${resume}`, { code: 'stopped', resume });
  } else if (unknown > 0) {
    session.notice(
      `Check the unknown ones with \`pets list\`; to send them again anyway: ${resume} --retry-unknown`,
      { code: 'unknown_outcomes', resume: `${resume} --retry-unknown` },
    );
  }
  if (stoppedBy) throw stoppedBy;
  if (failed > 0 || unknown > 0 || notSent > 0) session.exitCode = 1;
}

/** Quotes a word for a POSIX shell, where it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command that resumes this run: the same file, target and options that matter. */
function resumeCommand(flags: AddFileFlags, profile: string, fromStdin: boolean): string {
  const words = [
    'pets',
    '--profile',
    profile,
    'add',
    '--file',
    flags.file,
    ...(flags.journal ? ['--journal', flags.journal] : []),
    ...(flags.format ? ['--format', flags.format] : []),
    ...(flags.concurrency ? ['--concurrency', String(flags.concurrency)] : []),
    ...(flags.yes ? ['--yes'] : []),
  ];
  return words.map(shellWord).join(' ') + (fromStdin ? ' < (the same input)' : '');
}
