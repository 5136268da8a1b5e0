import type { BatchOptions, BatchPlan, QuotaOutlook } from '../../batch/plan.js';
import { timeUnderQuotaMs } from '../../batch/plan.js';
import { clockTime, formatDuration } from '../../core/clock.js';
import { shellWord } from '../../core/terminal-text.js';

// How a batch's plan reads: the one-line start of a run on a terminal, the fields of
// --dry-run, its JSON, and the command that resumes the run. All from the one plan value.

/**
 * The command that resumes this run: the same target, file and options, as the user gave
 * them. Never --yes: a protected profile asks again.
 */
export function resumeCommand(options: Omit<BatchOptions, 'format'>): string {
  const words = [
    'pets',
    '--profile',
    options.profile,
    ...(options.maxWaitSeconds !== undefined ? ['--max-wait', String(options.maxWaitSeconds)] : []),
    'add',
    '--file',
    options.file,
    ...(options.formatGiven ? ['--format', options.formatGiven] : []),
    ...(options.journalGiven ? ['--journal', options.journalGiven] : []),
    ...(options.concurrency !== undefined ? ['--concurrency', String(options.concurrency)] : []),
    ...(options.retryUnknown ? ['--retry-unknown'] : []),
    ...(options.newRun ? ['--new-run'] : []),
    ...(options.ignoreUnknown ? ['--ignore-unknown'] : []),
    // The output flags: --jq (which implies --json), else --json; and --quiet.
    ...(options.output?.jq !== undefined ? ['--jq', options.output.jq] : []),
    ...(options.output?.json && options.output.jq === undefined ? ['--json'] : []),
    ...(options.output?.quiet ? ['--quiet'] : []),
  ];
  return words.map(shellWord).join(' ') + (options.file === '-' ? ' < (the same input)' : '');
}

const WINDOW_NAMES: Record<number, string> = {
  1_000: 'second',
  60_000: 'minute',
  3_600_000: 'hour',
  86_400_000: 'day',
};

/** `60 per minute`, `1000 per day`, `20 per 65 s`; `10 per 12 s or more` for a lower bound. */
export function perWindow(limit: number, lengthMs: number, lowerBound = false): string {
  const name = WINDOW_NAMES[lengthMs];
  return `${limit} per ${name ?? formatDuration(lengthMs)}${lowerBound ? ' or more' : ''}`;
}

/** `about 5 min`; `at least 48 s` where the window's length is only a lower bound. */
function estimate(quota: QuotaOutlook, ms: number): string {
  return `${quota.window?.lengthIsLowerBound ? 'at least' : 'about'} ${formatDuration(ms)}`;
}

/** What the quota makes of `count` creates, in a few words. */
function quotaWords(quota: QuotaOutlook, count: number, nowMs: number): string[] {
  if (quota.kind === 'unlimited') return ['no rate limit stated'];
  const window = quota.window;
  if (!window) return ['quota not known yet'];
  const words = [perWindow(window.limit, window.lengthMs, window.lengthIsLowerBound)];
  const ms = timeUnderQuotaMs(quota, count, nowMs);
  if (ms !== undefined && count > 0) {
    words.push(ms < 1_000 ? 'within the quota left' : estimate(quota, ms));
  }
  return words;
}

/** The line a run on a terminal starts with: `300 to send · 60 per minute · about 5 min`. */
export function startLine(plan: BatchPlan, nowMs: number): string {
  const records = plan.records;
  if (!records) return quotaWords(plan.quota, Infinity, nowMs).slice(0, 1).join('');
  const parts = [`${records.toSend} to send`];
  if (records.created > 0) parts.push(`${records.created} already created`);
  if (records.unknown > 0) parts.push(`${records.unknown} unknown held back`);
  if (records.invalid > 0) parts.push(`${records.invalid} invalid`);
  parts.push(...quotaWords(plan.quota, records.toSend, nowMs));
  return parts.join(' · ');
}

/** --dry-run's report as label and value pairs. */
export function planFields(plan: BatchPlan, nowMs: number): Array<[string, string]> {
  const { options, records, quota } = plan;
  const fields: Array<[string, string]> = [
    [
      'file',
      `${options.file} (${options.format}${options.formatFromContent ? ', from its first bytes' : ''})`,
    ],
    ['target', `profile ${options.profile} at ${options.baseUrl}`],
  ];
  if (options.guard?.protected) fields.push(['protected', guardWords(options.guard.yes)]);
  fields.push(['journal', options.journal]);
  if (records) {
    fields.push(
      [
        'records',
        `${records.total} (${records.total - records.invalid} valid, ${records.invalid} invalid)`,
      ],
      ['to send', String(records.toSend)],
      [
        'journal holds',
        `${records.created} created (skipped), ${records.unknown} unknown (held back` +
          `${records.unknown > 0 ? '; --retry-unknown sends them' : ''}), ` +
          `${records.failedBefore} failed for good`,
      ],
    );
  }
  fields.push(['quota', quotaField(quota, nowMs)]);
  if (quota.blockedUntilMs !== undefined) {
    fields.push([
      'blocked',
      `${quota.banned ? 'the key is banned' : 'after a 429'} until ${clockTime(quota.blockedUntilMs, nowMs)}`,
    ]);
  }
  if (records) fields.push(['time', timeField(plan, nowMs)]);
  // What runs the plan for real: --concurrency, --max-wait and the rest show here.
  fields.push(['command', resumeCommand(options)]);
  fields.push(['sent', sentField(quota)]);
  return fields;
}

/** What a real run does on a protected profile: --yes is what a dry run's plan tells of it. */
function guardWords(yes: boolean): string {
  return yes
    ? 'yes; with --yes a real run asks nothing'
    : "yes; a real run asks you to type the profile's name (in a pipe, it needs --yes)";
}

/** What the dry run sent, as the gate counted it: a GET that never connected was not sent. */
function sentField(quota: QuotaOutlook): string {
  const count = quota.askedRequests ?? (quota.asked ? 1 : 0);
  // Tried, as --debug shows, and refused before a byte left (nothing listening, say).
  if (count === 0 && quota.askedRequests === 0) {
    return 'nothing: the GET /pets?limit=1 to learn the quota did not reach the server';
  }
  if (count === 0) return 'nothing';
  const gets = count === 1 ? 'one GET /pets?limit=1' : `GET /pets?limit=1, ${count} times`;
  return `${gets}, to learn the quota; no create`;
}

function quotaField(quota: QuotaOutlook, nowMs: number): string {
  if (quota.kind === 'unlimited') return 'the server states no rate limit';
  const window = quota.window;
  if (!window) return `not known yet${quota.asked ? '' : ' (the first answer tells)'}`;
  return (
    `${perWindow(window.limit, window.lengthMs, window.lengthIsLowerBound)}, ${window.remaining} left until ` +
    `${clockTime(window.resetAtMs, nowMs)} (the server states one window at a time: ` +
    'a daily quota shows once it is the tighter)'
  );
}

function timeField(plan: BatchPlan, nowMs: number): string {
  const count = plan.records?.toSend ?? 0;
  if (count === 0) return 'nothing to send';
  const ms = timeUnderQuotaMs(plan.quota, count, nowMs);
  if (ms === undefined) return 'not known: as fast as the server answers';
  if (ms < 1_000) return 'at once: the window has room for every create';
  return `${estimate(plan.quota, ms)}, at the least the quota allows (until ${clockTime(nowMs + ms, nowMs)})`;
}

/** --dry-run's report with --json: numbers and ISO times. */
export function planJson(plan: BatchPlan, nowMs: number): Record<string, unknown> {
  const { options, records, quota } = plan;
  const window = quota.window;
  const ms = records ? timeUnderQuotaMs(quota, records.toSend, nowMs) : undefined;
  return {
    dryRun: true,
    file: options.file,
    format: options.format,
    formatFrom: options.formatGiven ? 'flag' : options.formatFromContent ? 'content' : 'extension',
    profile: options.profile,
    baseUrl: options.baseUrl,
    protected: options.guard?.protected ?? false,
    asks: options.guard ? options.guard.protected && !options.guard.yes : false,
    journal: options.journal,
    records: records
      ? {
          total: records.total,
          valid: records.total - records.invalid,
          invalid: records.invalid,
          toSend: records.toSend,
          created: records.created,
          unknown: records.unknown,
          failedBefore: records.failedBefore,
        }
      : null,
    invalid: records?.invalidRecords ?? [],
    quota: {
      known: quota.kind,
      limit: window?.limit ?? null,
      remaining: window?.remaining ?? null,
      resetAt: window ? new Date(window.resetAtMs).toISOString() : null,
      windowSeconds: window ? window.lengthMs / 1000 : null,
      blockedUntil:
        quota.blockedUntilMs === undefined ? null : new Date(quota.blockedUntilMs).toISOString(),
      asked: quota.asked,
    },
    estimate:
      ms === undefined
        ? null
        : { seconds: Math.ceil(ms / 1000), endsAt: new Date(nowMs + ms).toISOString() },
    command: resumeCommand(options),
  };
}
