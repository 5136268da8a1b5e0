import { describe, expect, it } from 'vitest';
import { quotaOutlook, type BatchPlan } from '../../../src/batch/plan.js';
import { planFields, startLine } from '../../../src/cmd/pets/add-plan.js';

const now = Date.parse('2026-11-24T20:00:00Z');

function planWith(resetInMs: number, windowMs?: number): BatchPlan {
  return {
    options: {
      profile: 'staging',
      baseUrl: 'https://api.example.test/v1',
      file: 'pets.csv',
      format: 'csv',
      journal: 'pets.csv.pets-journal',
      retryUnknown: false,
    },
    records: {
      total: 40,
      toSend: 40,
      created: 0,
      unknown: 0,
      failedBefore: 0,
      invalid: 0,
      invalidRecords: [],
    },
    quota: quotaOutlook(
      { quota: { limit: 10, remaining: 10, resetAtMs: now + resetInMs } },
      now,
      windowMs === undefined ? {} : { windowMs },
    ),
  };
}

describe('the plan, where the window was read part-way through', () => {
  it('takes a window that resets within a minute as a minute: the contract counts per minute', () => {
    // A free plan's window read 25 s in: 60 per minute, not 60 per 35 s or more (issue 32).
    const plan = planWith(12_000);
    expect(startLine(plan, now)).toBe('40 to send · 10 per minute · about 2 min');
    const fields = Object.fromEntries(planFields(plan, now));
    expect(fields.quota).toMatch(/^10 per minute, 10 left until/);
    expect(fields.time).toMatch(/^about 2 min, at the least the quota allows/);
  });

  it('says the length and the time are at least what it shows where no usual length fits', () => {
    // A 90 s window read 20 s in: 70 s left, and no answer has told its length.
    const plan = planWith(70_000);
    expect(startLine(plan, now)).toBe('40 to send · 10 per 70 s or more · at least 4 min');
    const fields = Object.fromEntries(planFields(plan, now));
    expect(fields.quota).toMatch(/^10 per 70 s or more, 10 left until/);
    expect(fields.time).toMatch(/^at least 4 min, at the least the quota allows/);
  });

  it('says about where the length is known', () => {
    const plan = planWith(12_000, 30_000);
    expect(startLine(plan, now)).toBe('40 to send · 10 per 30 s · about 72 s');
    expect(Object.fromEntries(planFields(plan, now)).time).toMatch(/^about /);
  });
});
