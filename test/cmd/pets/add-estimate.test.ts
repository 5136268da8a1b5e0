import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../../src/core/clock.js';
import { parseJson } from '../../../src/json/int64-json.js';
import { apiEnv } from '../../helpers/api-env.js';
import { tempDir } from '../../helpers/config-dir.js';
import { concurrentClock } from '../../helpers/fake-clock.js';
import { runMain } from '../../helpers/run-main.js';
import { testSandbox } from '../../helpers/sandbox.js';

describe("a per-minute plan's estimate, for an import started mid-window", () => {
  it.each([
    // [records, seconds into the window when the import starts]
    [300, 25],
    [130, 50],
  ])(
    '%i records, %i s into the window: the first estimate is within 30 percent of the time taken',
    async (records, intoWindowS) => {
      // The free plan on an injected clock: a minute passes at once.
      const clock = concurrentClock();
      const sandbox = await testSandbox({ plan: 'free', now: clock.now });
      const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
      const input = join(tempDir('pets-estimate-'), 'pets.ndjson');
      writeFileSync(
        input,
        Array.from({ length: records }, (_, i) =>
          JSON.stringify({ name: `E${i}`, categoryId: 1 }),
        ).join('\n'),
      );
      // Something else on the key opened the window: the import starts part-way into it.
      expect((await runMain(['list', '--limit', '1'], env, {}, clock)).code).toBe(0);
      await clock.sleep(intoWindowS * 1000);

      const dryRun = await runMain(['add', '--file', input, '--dry-run', '--json'], env, {}, clock);
      const plan = parseJson(dryRun.stdout) as {
        quota: { windowSeconds: number };
        estimate: { seconds: number };
      };
      // The window's length, not the time left in it.
      expect(plan.quota.windowSeconds).toBe(60);

      const started = clock.now();
      const run = await runMain(['add', '--file', input], env, { stderrIsTTY: true }, clock);
      const takenS = (clock.now() - started) / 1000;
      expect(run.code, run.stderr).toBe(0);
      expect(sandbox.pets()).toHaveLength(records);
      const context = `estimate ${plan.estimate.seconds} s, taken ${takenS} s`;
      expect(Math.abs(plan.estimate.seconds - takenS), context).toBeLessThanOrEqual(0.3 * takenS);
      // The line a run on a terminal starts with says the same, per minute; the README shows
      // the first.
      expect(run.stderr.split('\n')[0]).toBe(
        records === 300
          ? '300 to send · 60 per minute · about 5 min'
          : `${records} to send · 60 per minute · about ${formatDuration(plan.estimate.seconds * 1000)}`,
      );
    },
    60_000,
  );
});
