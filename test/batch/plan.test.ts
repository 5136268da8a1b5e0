import { describe, expect, it } from 'vitest';
import { readRecords } from '../../src/batch/input/index.js';
import type { PreviousRecord } from '../../src/batch/journal.js';
import {
  inferWindowMs,
  quotaOutlook,
  recordNamer,
  surveyRecords,
  timeUnderQuotaMs,
} from '../../src/batch/plan.js';

const chunks = (text: string) =>
  (async function* () {
    yield Buffer.from(text);
  })();

const MINUTE = 60_000;

describe('surveyRecords', () => {
  it('counts records, not lines: a CSV field quoted over two lines is one record', async () => {
    const csv = 'name,categoryId\n"Rex\nthe second",1\nTom,2\n,3\n';
    const survey = await surveyRecords(readRecords(chunks(csv), 'csv'), emptyJournal(), false);
    expect(survey).toMatchObject({ total: 3, toSend: 2, invalid: 1 });
    expect(survey.invalidRecords).toEqual([{ line: 5, problem: expect.stringContaining('name') }]);
  });

  it('sorts the valid records by what the journal holds of them', async () => {
    const lines = ['A', 'B', 'C', 'D', 'A'].map((name) => JSON.stringify({ name, categoryId: 1 }));
    const input = lines.join('\n');
    // The journal's names, made as a run makes them: content and occurrence.
    const names: string[] = [];
    const nameOf = recordNamer({ records: 0 });
    for await (const record of readRecords(chunks(input), 'ndjson'))
      names.push(nameOf(record.pet!));
    const held = new Map<string, PreviousRecord>([
      [names[0]!, { outcome: 'created', id: 1n }],
      [names[1]!, { outcome: 'unknown' }],
      [names[2]!, { outcome: 'failed', retryable: false }],
      [names[3]!, { outcome: 'failed', retryable: true }],
    ]);
    const journal = { records: held.size, previous: (name: string) => held.get(name) };
    const survey = await surveyRecords(readRecords(chunks(input), 'ndjson'), journal, false);
    // The second A is another record: not created yet.
    expect(survey).toMatchObject({ total: 5, created: 1, unknown: 1, failedBefore: 1, toSend: 2 });
    const retrying = await surveyRecords(readRecords(chunks(input), 'ndjson'), journal, true);
    expect(retrying).toMatchObject({ unknown: 0, toSend: 3 });
  });
});

describe('the quota estimate', () => {
  const now = Date.parse('2026-11-24T20:00:00Z');

  it('reads a window from the time left to its reset: the contract counts per minute and per day', () => {
    expect(inferWindowMs(now + 60_000, now)).toBe(MINUTE);
    expect(inferWindowMs(now + 60_900, now)).toBe(MINUTE);
    expect(inferWindowMs(now + 56_000, now)).toBe(MINUTE);
    // Started mid-window: the time left is not the window's length (issue 32).
    expect(inferWindowMs(now + 35_000, now)).toBe(MINUTE);
    expect(inferWindowMs(now + 400, now)).toBe(MINUTE);
    expect(inferWindowMs(now + 65_000, now)).toBe(65_000);
    expect(inferWindowMs(now + 3_600_000, now)).toBe(3_600_000);
    expect(inferWindowMs(now + 14 * 3_600_000, now)).toBe(86_400_000);
    expect(inferWindowMs(now + 86_400_000, now)).toBe(86_400_000);
  });

  it('takes a window that resets within a minute as a minute, and says when a length is only a lower bound', () => {
    // 35 s left of a free plan's window: 60 per minute, not 60 per 35 s or more.
    const midWindow = quotaOutlook(
      { quota: { limit: 60, remaining: 59, resetAtMs: now + 35_000 } },
      now,
    );
    expect(midWindow.window).toMatchObject({ lengthMs: MINUTE });
    expect(midWindow.window?.lengthIsLowerBound).toBeUndefined();
    // 300 records: 59 now, then 60 at 35 s, 95 s, 155 s and 215 s, and the last one at 275 s.
    expect(timeUnderQuotaMs(midWindow, 300, now)).toBe(35_000 + 4 * MINUTE);
    // 70 s left fits no usual length: 70 s or more.
    const partial = quotaOutlook(
      { quota: { limit: 10, remaining: 0, resetAtMs: now + 70_000 } },
      now,
    );
    expect(partial.window).toMatchObject({ lengthMs: 70_000, lengthIsLowerBound: true });
    // A length seen between two resets is known, whatever the time left.
    const seen = quotaOutlook(
      { quota: { limit: 10, remaining: 0, resetAtMs: now + 18_000 } },
      now,
      {
        windowMs: 30_000,
      },
    );
    expect(seen.window).toMatchObject({ lengthMs: 30_000 });
    expect(seen.window?.lengthIsLowerBound).toBeUndefined();
  });

  it('300 records at 60 a minute take the four windows after this one: 5 min', () => {
    const outlook = quotaOutlook(
      { quota: { limit: 60, remaining: 59, resetAtMs: now + 60_000 } },
      now,
    );
    expect(outlook.window).toMatchObject({ lengthMs: MINUTE });
    // 59 now, then 60 at 1, 2, 3 and 4 min, and the last 1 at 5 min.
    expect(timeUnderQuotaMs(outlook, 300, now)).toBe(5 * MINUTE);
    expect(timeUnderQuotaMs(outlook, 59, now)).toBe(0);
    expect(timeUnderQuotaMs(outlook, 60, now)).toBe(MINUTE);
    expect(timeUnderQuotaMs(outlook, 119, now)).toBe(MINUTE);
  });

  it('counts the windows still imposed, whatever their length, and a block first', () => {
    const hour = quotaOutlook(
      { quota: { limit: 100, remaining: 0, resetAtMs: now + 600_000 } },
      now,
      {
        windowMs: 3_600_000,
      },
    );
    expect(timeUnderQuotaMs(hour, 250, now)).toBe(600_000 + 2 * 3_600_000);
    const blocked = quotaOutlook(
      {
        quota: { limit: 10, remaining: 10, resetAtMs: now + 5_000 },
        cooldownUntilMs: now + 30_000,
        cooldownCode: 'key_banned',
      },
      now,
      { windowMs: 12_000 },
    );
    expect(blocked).toMatchObject({ banned: true, blockedUntilMs: now + 30_000 });
    // The window has rolled over twice by the end of the ban: 10 then, 10 one window later.
    expect(timeUnderQuotaMs(blocked, 5, now)).toBe(30_000);
    expect(timeUnderQuotaMs(blocked, 15, now)).toBe(41_000);
  });

  it('knows nothing of a server that has not answered, and no time for one without limits', () => {
    expect(quotaOutlook(undefined, now)).toMatchObject({ kind: 'unknown' });
    expect(timeUnderQuotaMs(quotaOutlook(undefined, now), 10, now)).toBeUndefined();
    expect(quotaOutlook({ unlimited: true }, now)).toMatchObject({ kind: 'unlimited' });
  });
});

function emptyJournal() {
  return { records: 0, previous: () => undefined };
}
