import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { hasScript, onTerminal } from '../helpers/terminal.js';
import { testSandbox } from '../helpers/sandbox.js';

// A `pets list` typed at a second terminal while an import on the same key waits for its next
// window. Real processes on the real clock, on a window of 6 s rather than a minute: the
// import takes its window's budget the moment it opens, so before the reserve the list waited
// for the next window (a minute on the free plan). The list must end before that window opens.
const WINDOW_S = 6;
const LIMIT = 20;
const RECORDS = 24;

describe.skipIf(!hasScript)('a short command while a batch runs on its key', () => {
  it("`pets list` answers during the batch's wait, before its next window, and the batch takes no longer", async () => {
    const sandbox = await testSandbox({ plan: 'free', rpm: LIMIT, windowSeconds: WINDOW_S });
    const dir = tempDir('pets-short-');
    const input = join(dir, 'records.ndjson');
    writeFileSync(
      input,
      Array.from({ length: RECORDS }, (_, i) =>
        JSON.stringify({ name: `S${i}`, categoryId: 1 }),
      ).join('\n'),
    );
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const started = Date.now();
    const batch = onTerminal(['add', '--file', input], env);
    // The batch has taken what its first window gives it at once, and waits for the next.
    const posts = () => sandbox.requestLog.filter((entry) => entry.method === 'POST').length;
    await batch.waitFor(/\d+\/24 /);
    while (posts() < LIMIT - 2 && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(posts()).toBeGreaterThanOrEqual(LIMIT - 2);

    const listStarted = Date.now();
    const list = onTerminal(['list', '--limit', '1'], env);
    expect(await list.exited).toBe(0);
    const listEnded = Date.now();
    const nextWindow = sandbox.requestLog[0]!.at + WINDOW_S * 1000;
    expect(
      listEnded,
      `list took ${listEnded - listStarted} ms, ended ${nextWindow - listEnded} ms before the next window`,
    ).toBeLessThan(nextWindow);

    expect(await batch.exited).toBe(0);
    expect(sandbox.pets()).toHaveLength(RECORDS);
    expect(sandbox.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    // 24 creates and a list need two windows of 20: the second opens one window after the
    // first request; the batch ends shortly after it, as it did with no list.
    const firstArrival = sandbox.requestLog[0]!.at;
    const elapsedMs = Date.now() - started;
    const leastMs = firstArrival - started + WINDOW_S * 1000;
    expect(elapsedMs, `batch ${elapsedMs} ms, least ${leastMs} ms`).toBeLessThanOrEqual(
      1.05 * leastMs + 2_000,
    );
  }, 40_000);
});
