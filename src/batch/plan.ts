import type { PreviousRecord } from './journal.js';

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
