import type { JournalEntry } from './journal.js';

/**
 * What to do with a record on this run, given what the journal says of it:
 * send it; skip it as created; hold it as unknown (a create that may have happened is not
 * repeated unless asked); repeat an earlier failure that retrying cannot fix; or refuse it
 * because the input changed under the journal.
 */
export type RecordPlan = 'send' | 'skip-created' | 'hold-unknown' | 'repeat-failure' | 'changed';

export function planRecord(
  hash: string,
  previous: JournalEntry | undefined,
  retryUnknown: boolean,
): RecordPlan {
  if (!previous) return 'send';
  if (previous.hash !== hash) return 'changed';
  switch (previous.outcome) {
    case 'created':
      return 'skip-created';
    case 'unknown':
      return retryUnknown ? 'send' : 'hold-unknown';
    case 'failed':
      return previous.retryable ? 'send' : 'repeat-failure';
  }
}
