import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../../src/json/int64-json.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { apiEnv } from '../../helpers/api-env.js';
import { runMain } from '../../helpers/run-main.js';
import { tempDir } from '../../helpers/config-dir.js';

// A daily quota of 5: its window resets a day after it began, so every time pets gives for
// it is tomorrow's.
let sandbox: RunningSandbox;
let env: Record<string, string>;
let input: string;

beforeEach(async () => {
  sandbox = await startSandbox({ plan: 'free', rpm: 600, rpd: 5 });
  env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
  input = join(tempDir('pets-day-'), 'eight.ndjson');
  writeFileSync(
    input,
    Array.from({ length: 8 }, (_, i) => JSON.stringify({ name: `D${i}`, categoryId: 1 })).join(
      '\n',
    ),
  );
});
afterEach(() => sandbox.close());

describe('a daily quota', () => {
  it('--dry-run estimates per day, and says the day', async () => {
    const result = await runMain(['add', '--file', input, '--dry-run'], env);
    expect(result.code).toBe(0);
    expect(sandbox.requestLog.map((entry) => entry.method)).toEqual(['GET']);
    expect(result.stdout).toMatch(/quota\s+5 per day, 4 left until tomorrow \d\d:\d\d:\d\d/);
    // 4 go today, the other 4 when tomorrow's window opens.
    expect(result.stdout).toMatch(/time\s+about 24\.0 h, .*\(until tomorrow \d\d:\d\d:\d\d\)/);
  });

  it('stops a run saying the day it may resume; --json carries the ISO time', async () => {
    const result = await runMain(['add', '--file', input, '--json'], env);
    expect(result.code).toBe(5);
    expect(sandbox.pets()).toHaveLength(5);
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    const lines = result.stderr.trim().split('\n');
    const error = (parseJson(lines.at(-1)!) as { error: Record<string, unknown> }).error;
    expect(error.message).toMatch(/may go at tomorrow \d\d:\d\d:\d\d/);
    expect(String(error.resetAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(String(error.resetAt)) - Date.now()).toBeGreaterThan(23 * 3600_000);
  });
});
