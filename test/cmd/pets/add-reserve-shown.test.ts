import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiEnv } from '../../helpers/api-env.js';
import { tempDir } from '../../helpers/config-dir.js';
import { concurrentClock } from '../../helpers/fake-clock.js';
import { runMain } from '../../helpers/run-main.js';
import { testSandbox } from '../../helpers/sandbox.js';

describe("a batch holding a window's last requests for short commands", () => {
  it('shows the hold as a wait, counting down, and does not count it against --max-wait', async () => {
    // 70 records on the free plan, on an injected clock: the first window's 58 go at once,
    // its last 2 wait until 2 s before Reset. Before, the line stood still for those 58 s.
    const clock = concurrentClock();
    const sandbox = await testSandbox({ plan: 'free', now: clock.now });
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const input = join(tempDir('pets-hold-'), 'pets.ndjson');
    writeFileSync(
      input,
      Array.from({ length: 70 }, (_, i) => JSON.stringify({ name: `H${i}`, categoryId: 1 })).join(
        '\n',
      ),
    );
    // The window's Reset is the quota's own wait: --max-wait covers it, not the hold as well.
    const run = await runMain(
      ['add', '--file', input, '--max-wait', '10'],
      env,
      { stderrIsTTY: true },
      clock,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.pets()).toHaveLength(70);
    const frames = run.stderr.split('\r\u001b[2K');
    const held = frames.filter((frame) =>
      /^58\/70 .*sharing the window, sending in \d+ s/.test(frame),
    );
    const seconds = held.map((frame) => Number(/sending in (\d+) s/.exec(frame)![1]));
    // Counted down over the hold, a second at a time, from most of the minute to its end.
    expect(Math.max(...seconds)).toBeGreaterThanOrEqual(50);
    expect(Math.min(...seconds)).toBe(1);
    expect(new Set(seconds).size).toBeGreaterThanOrEqual(50);
  }, 60_000);
});
