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
  it('says the length and the time are at least what it shows, not about', () => {
    // A 30 s window read 18 s in: 12 s left, and no answer has told its length.
    const plan = planWith(12_000);
    expect(startLine(plan, now)).toBe('40 to send · 10 per 12 s or more · at least 36 s');
    const fields = Object.fromEntries(planFields(plan, now));
    expect(fields.quota).toMatch(/^10 per 12 s or more, 10 left until/);
    expect(fields.time).toMatch(/^at least 36 s, at the least the quota allows/);
  });

  it('says about where the length is known', () => {
    const plan = planWith(12_000, 30_000);
    expect(startLine(plan, now)).toBe('40 to send · 10 per 30 s · about 72 s');
    expect(Object.fromEntries(planFields(plan, now)).time).toMatch(/^about /);
  });
});
