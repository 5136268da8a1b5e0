import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { apiEnv } from '../../helpers/api-env.js';
import { runMain } from '../../helpers/run-main.js';
import { testSandbox } from '../../helpers/sandbox.js';

let sandbox: RunningSandbox;
let env: Record<string, string>;

beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'free', rpm: 50 });
  env = apiEnv(sandbox);
});

describe('pets quota', () => {
  it('asks the server once, then answers from the cached state without sending', async () => {
    const sent = sandbox.requestLog.length;
    const first = JSON.parse((await runMain(['quota', '--json'], env)).stdout);
    expect(first).toMatchObject({ limit: 50, source: 'server', cooldownUntil: null });
    expect(first.remaining).toBeLessThan(50);
    expect(first.resetInSeconds).toBeGreaterThan(0);
    expect(first.resetInSeconds).toBeLessThanOrEqual(61);
    expect(sandbox.requestLog.length).toBe(sent + 1);

    const second = JSON.parse((await runMain(['quota', '--json'], env)).stdout);
    expect(second).toMatchObject({ limit: 50, remaining: first.remaining, source: 'cached' });
    expect(sandbox.requestLog.length).toBe(sent + 1);
  });

  it('reads as a list of fields on a terminal', async () => {
    const result = await runMain(['quota'], { ...env, NO_COLOR: '1' }, { stdoutIsTTY: true });
    expect(result.stdout).toMatch(/limit\s+50 requests per window/);
    expect(result.stdout).toMatch(/resets\s+.+ \(in \d+ s\)/);
    expect(result.stdout).toMatch(/cooldown\s+none/);
  });

  it('spends a budget that is left at once: no wait under --debug, and the headers shown', async () => {
    await runMain(['list'], env);
    const result = await runMain(['list', '--debug'], env);
    expect(result.stderr).not.toMatch(/wait/);
    expect(result.stderr).toMatch(
      /x-ratelimit-limit=50 x-ratelimit-remaining=\d+ x-ratelimit-reset=\d+/,
    );
  });

  it('shows a usage bar on a terminal, and auth status includes the quota', async () => {
    await runMain(['list'], env);
    const tty = await runMain(['quota'], { ...env, NO_COLOR: '1' }, { stdoutIsTTY: true });
    expect(tty.stdout).toMatch(/used\s+\[#*\.*\] \d+% used/);
    const piped = await runMain(['quota'], env);
    expect(piped.stdout).not.toContain('% used');
    const status = await runMain(
      ['auth', 'status'],
      { ...env, NO_COLOR: '1' },
      { stdoutIsTTY: true },
    );
    expect(status.stdout).toMatch(/limit\s+50 requests per window/);
    expect(status.stdout).toMatch(/used\s+\[/);
    const json = JSON.parse((await runMain(['auth', 'status', '--json'], env)).stdout);
    // From the answer to the GET auth status sent to check the key: the server's, just now.
    expect(json.quota).toMatchObject({ limit: 50, source: 'server' });
  });
});
