import type { NewPet } from '../api/contract.js';
import type { InputRecord } from './input/index.js';
import type { InputFormat } from './input/format.js';
import type { Journal, PreviousRecord } from './journal.js';
import { recordHash } from './record-hash.js';
import { OccurrenceCounter } from './record-index.js';
import { liveLimits } from '../ratelimit/policy.js';

// A batch's plan: what it will send, to whom, with which options, and how long the quota
// makes that take. It is made once, before anything is sent; --dry-run prints it, the
// progress line reads it and the resume command is written from it, so the three agree.

/**
 * What to do with a record on this run, given what the journal says of it: send it; skip it
 * as created; hold it as unknown (a create that may have happened is not repeated unless
 * asked); or repeat an earlier failure that retrying cannot fix. A record whose content
 * changed is another record to the journal, so it is sent.
 */
export type RecordPlan = 'send' | 'skip-created' | 'hold-unknown' | 'repeat-failure';

export function planRecord(
  previous: PreviousRecord | undefined,
  retryUnknown: boolean,
): RecordPlan {
  if (!previous) return 'send';
  switch (previous.outcome) {
    case 'created':
      return 'skip-created';
    case 'unknown':
      return retryUnknown ? 'send' : 'hold-unknown';
    case 'failed':
      return previous.retryable ? 'send' : 'repeat-failure';
  }
}

/**
 * Names records as the journal knows them: the content's hash and its occurrence among
 * identical records. The names depend on order, so one namer meets the records in input order.
 */
export function recordNamer(journal: Pick<Journal, 'records'>): (pet: NewPet) => string {
  // Room up front for the records the journal knows, as an input is mostly those: growing
  // leaves its old arrays behind until a full collection.
  const seen = new OccurrenceCounter(journal.records);
  return (pet) => {
    const hash = recordHash(pet);
    return `${hash}.${seen.next(hash)}`;
  };
}

/** The options of a run, as the user gave them (what the resume command repeats): `…Given`
 * and the optional flags only when given. */
export interface BatchOptions {
  profile: string;
  /** The profile's base URL, as configured or given in PETS_BASE_URL. */
  baseUrl: string;
  /** A path, or '-' for stdin. */
  file: string;
  format: InputFormat;
  formatGiven?: InputFormat;
  /** Whether `format` was read from the input's first bytes, neither given nor by extension. */
  formatFromContent?: boolean;
  journal: string;
  journalGiven?: string;
  concurrency?: number;
  maxWaitSeconds?: number;
  retryUnknown: boolean;
  /** --new-run: send records that another journal of the target already holds. */
  newRun?: boolean;
  /** --ignore-unknown: fields no pet has are left out, not refused. */
  ignoreUnknown?: boolean;
  /** --json, --jq and --quiet, for the resume command. */
  output?: { json: boolean; jq?: string; quiet: boolean };
  /** The profile is protected, and whether --yes was given: what a dry run says a run asks. */
  guard?: { protected: boolean; yes: boolean };
}

/** The input, record by record, against the journal. */
export interface RecordSurvey {
  /** Records, not lines: a CSV field quoted over two lines is one record. */
  total: number;
  toSend: number;
  /** Created by an earlier run: skipped. */
  created: number;
  /** May have been created by an earlier run: held back (--retry-unknown sends them). */
  unknown: number;
  /** Failed on an earlier run in a way sending again cannot fix: the failure is repeated. */
  failedBefore: number;
  invalid: number;
  /** The first MAX_INVALID_LISTED invalid records, with their lines. */
  invalidRecords: Array<{ line: number; problem: string }>;
}

const MAX_INVALID_LISTED = 1_000;

/** Reads every record and checks it against the journal, sending nothing. */
export async function surveyRecords(
  records: AsyncIterable<InputRecord>,
  journal: Pick<Journal, 'records' | 'previous'>,
  retryUnknown: boolean,
): Promise<RecordSurvey> {
  const survey: RecordSurvey = {
    total: 0,
    toSend: 0,
    created: 0,
    unknown: 0,
    failedBefore: 0,
    invalid: 0,
    invalidRecords: [],
  };
  const nameOf = recordNamer(journal);
  for await (const record of records) {
    survey.total++;
    if (!record.pet) {
      survey.invalid++;
      if (survey.invalidRecords.length < MAX_INVALID_LISTED) {
        survey.invalidRecords.push({ line: record.line, problem: record.problem ?? 'invalid' });
      }
      continue;
    }
    survey[COUNTED_AS[planRecord(journal.previous(nameOf(record.pet)), retryUnknown)]]++;
  }
  return survey;
}

/** The count of a survey each plan of a record adds to. */
const COUNTED_AS = {
  send: 'toSend',
  'skip-created': 'created',
  'hold-unknown': 'unknown',
  'repeat-failure': 'failedBefore',
} as const satisfies Record<RecordPlan, keyof RecordSurvey>;

/** A window of the key's quota, as the server last stated it. */
export interface QuotaWindow {
  limit: number;
  remaining: number;
  resetAtMs: number;
  /** How long a window lasts: inferred from Reset, or seen between two windows. */
  lengthMs: number;
  /**
   * The length was read from a window already under way and fits no usual length: the window
   * lasts at least this long, maybe longer, and so may the work.
   */
  lengthIsLowerBound?: boolean;
}

/** What is known of the key's quota when the plan is made. */
export interface QuotaOutlook {
  /** window: the server stated one; unlimited: it states none; unknown: nothing heard yet. */
  kind: 'window' | 'unlimited' | 'unknown';
  window?: QuotaWindow;
  /** Nothing may be sent before this (a 429's Retry-After, a ban). */
  blockedUntilMs?: number;
  banned?: boolean;
  /** A request was sent to learn it (--dry-run, when nothing was known). */
  asked: boolean;
  /** How many were sent to learn it, retries included, when one was tried. */
  askedRequests?: number;
}

/** The part of the rate gate's state that an outlook reads. */
export interface GateView {
  quota?: { limit: number; remaining: number; resetAtMs: number };
  cooldownUntilMs?: number;
  cooldownCode?: string;
  unlimited?: boolean;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Reset is stated in whole seconds: a window just begun may seem this much longer.
const RESET_ROUNDING_MS = 1_000;

/**
 * How long the window ending at `resetAtMs` lasts, as far as `now` can tell. The contract's
 * plans count per minute and per day, so a window that resets within a minute is a minute,
 * however far into it the run starts (a free-plan import begun mid-window says 60 per minute,
 * not 60 per 35 s), and one that resets within a day and more than an hour from now is the
 * day's. An hour that fits closely is an hour. Anything else is that time itself, and a lower
 * bound (a 65 s window read 5 s in): only two resets seen can tell it better.
 */
export function inferWindowMs(resetAtMs: number, nowMs: number): number {
  const left = Math.max(SECOND, resetAtMs - nowMs);
  if (left <= MINUTE + RESET_ROUNDING_MS) return MINUTE;
  if (left >= HOUR * 0.9 && left <= HOUR + RESET_ROUNDING_MS) return HOUR;
  if (left > HOUR && left <= DAY + RESET_ROUNDING_MS) return DAY;
  return Math.ceil(left / SECOND) * SECOND;
}

const USUAL_WINDOWS = [MINUTE, HOUR, DAY];

/**
 * The quota as `state` tells it at `nowMs`. A window that has ended is taken as a new one
 * with the whole limit, when its length is known (`windowMs`, seen between two windows).
 */
export function quotaOutlook(
  state: GateView | undefined,
  nowMs: number,
  known: { asked?: boolean; windowMs?: number } = {},
): QuotaOutlook {
  const asked = known.asked === true;
  const { quota, cooldownUntilMs, cooldownCode } = liveLimits(state, nowMs);
  const blocked =
    cooldownUntilMs !== undefined
      ? { blockedUntilMs: cooldownUntilMs, banned: cooldownCode === 'key_banned' }
      : {};
  if (quota) {
    // A length seen between two windows is exact; one inferred, only when it is a usual one.
    const lengthMs = known.windowMs ?? inferWindowMs(quota.resetAtMs, nowMs);
    const window: QuotaWindow =
      known.windowMs !== undefined || USUAL_WINDOWS.includes(lengthMs)
        ? { ...quota, lengthMs }
        : { ...quota, lengthMs, lengthIsLowerBound: true };
    return { kind: 'window', window, asked, ...blocked };
  }
  const ended = state?.quota;
  if (ended && known.windowMs !== undefined) {
    const window = {
      limit: ended.limit,
      remaining: ended.limit,
      resetAtMs: nowMs + known.windowMs,
      lengthMs: known.windowMs,
    };
    return { kind: 'window', window, asked, ...blocked };
  }
  return { kind: state?.unlimited ? 'unlimited' : 'unknown', asked, ...blocked };
}

/**
 * The least time `count` creates take under the quota from `nowMs`: the window's remaining
 * budget goes at once, then a window's limit each time one opens. The time to send the last
 * window's requests themselves is not counted. Undefined when no limit is known.
 */
export function timeUnderQuotaMs(
  outlook: QuotaOutlook,
  count: number,
  nowMs: number,
): number | undefined {
  const window = outlook.window;
  if (!window || window.limit <= 0) return undefined;
  const start = Math.max(nowMs, outlook.blockedUntilMs ?? nowMs);
  // Windows are taken to follow each other; a blocked key's budget is taken as waiting.
  let resetAt = window.resetAtMs;
  let remaining = window.remaining;
  while (resetAt <= start) {
    resetAt += window.lengthMs;
    remaining = window.limit;
  }
  if (outlook.blockedUntilMs === undefined && count <= remaining) return 0;
  if (count <= remaining) return start - nowMs;
  const windows = Math.ceil((count - remaining) / window.limit);
  return resetAt - nowMs + (windows - 1) * window.lengthMs;
}

/** A batch's plan, made once before anything is sent. */
export interface BatchPlan {
  options: BatchOptions;
  /** The input against the journal: known when it was read ahead (a file on a terminal, --dry-run). */
  records?: RecordSurvey;
  quota: QuotaOutlook;
}
