import { describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { runBinary } from '../helpers/run-binary.js';
import { testSandbox } from '../helpers/sandbox.js';
import { strictServer } from '../helpers/strict-server.js';
import { inTrials } from '../helpers/trials.js';

// Issue 42: a window one process saw spent is over for every process of the machine once its
// Reset has passed on the server's clock. A new process has read no Date of its own; it counts
// the time since another did by the machine's monotonic clock, so it neither waits for nor
// refuses on a window that is over, and the "Retry after" it names does not move on while
// nothing is sent. Before, it took no time to have passed, up to 3 minutes (the skew allowance
// for another machine's clock): every try said "Retry after" a whole window from its own now.

const WINDOW_MS = 6_000;

/** The moment a refusal names, "Retry after HH:MM:SS", as seconds of the day. */
function retryAfter(stderr: string): number {
  const [, h, m, s] = /Retry after (\d\d):(\d\d):(\d\d)/.exec(stderr) ?? [];
  expect(h, stderr).toBeDefined();
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

describe('a window another process saw spent', () => {
  it('holds new processes only until its Reset, names one moment, and is over after it', async () => {
    const server = await strictServer({ limit: 2, windowMs: WINDOW_MS });
    const env = apiEnv(server);
    const list = () => runBinary(['list', '--max-wait', '0'], env);
    let refused = await list();
    for (let runs = 1; refused.code === 0 && runs < 6; runs++) refused = await list();
    expect(refused.code, refused.stderr).toBe(5);
    expect(refused.stderr).toContain('nothing was sent');

    // A second process a little later names the same moment (a second of rounding either way).
    const windowEnds = Math.ceil(Date.now() / WINDOW_MS) * WINDOW_MS;
    const again = await list();
    if (Date.now() < windowEnds - 500) {
      expect(again.code, again.stderr).toBe(5);
      expect(Math.abs(retryAfter(again.stderr) - retryAfter(refused.stderr))).toBeLessThanOrEqual(
        1,
      );
    }

    // Across the Reset (the server's windows align to its clock, which is this one), give or
    // take the second a Date names: a new process sends at once, with no wait.
    while (Date.now() < windowEnds + 1_100) await new Promise((r) => setTimeout(r, 100));
    const after = await list();
    expect(after.code, after.stderr).toBe(0);
    expect(server.sentWhileBlocked()).toBe(0);
  });
});

/**
 * The sandbox's rpm plan: processes spend its window, one is refused, and one started after the
 * Reset it named goes at once. Returns the refusals' named waits, in seconds.
 */
async function acrossTheSandboxReset(windowSeconds: number) {
  // Two a window: three processes spend it even on a short one with the machine loaded.
  const sandbox = await testSandbox({ plan: 'free', rpm: 2, windowSeconds });
  const env = apiEnv(sandbox);
  const list = () => runBinary(['list', '--max-wait', '0'], env);
  let refused = await list();
  for (let runs = 1; refused.code === 0 && runs < 10; runs++) refused = await list();
  expect(refused.code, refused.stderr).toBe(5);
  const [, wait] = /, in (\d+(?:\.\d)?) s,/.exec(refused.stderr) ?? [];
  // Reset is a whole Unix second: up to a second past the window.
  expect(Number(wait), refused.stderr).toBeLessThanOrEqual(windowSeconds + 1);
  const at = Date.now() + Number(wait) * 1000;
  while (Date.now() < at + 300) await new Promise((r) => setTimeout(r, 100));
  const after = await list();
  expect(after.code, after.stderr).toBe(0);
  expect(sandbox.requestLog.filter((entry) => entry.status !== 200)).toEqual([]);
}

describe("the sandbox's per-minute plan", () => {
  it('its window shrunk to 3 s: a refusal names the Reset, and a process after it goes at once', () =>
    acrossTheSandboxReset(3));
  it.runIf(inTrials)(
    'a whole minute, as a person meets it',
    () => acrossTheSandboxReset(60),
    120_000,
  );
});
