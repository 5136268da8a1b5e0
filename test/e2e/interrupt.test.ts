import { spawn } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/config-dir.js';
import { sendJson, testFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { BIN } from '../helpers/run-binary.js';

let fault: FaultServer;
beforeEach(async () => {
  fault = await testFaultServer();
});

describe('Ctrl-C', () => {
  it('ends a rate-limit wait at once with exit 130', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 429, '{"code":"rate_limited","message":"slow down","status":429}', {
        'retry-after': '30',
      }),
    );
    const child = spawn(process.execPath, [BIN, 'list', '--debug'], {
      env: {
        PATH: process.env.PATH,
        PETS_CONFIG_DIR: tempConfigDir(),
        PETS_BASE_URL: fault.baseUrl,
        PETS_API_KEY: 'key_0123456789',
      },
    });
    let stderr = '';
    // --debug says when the wait starts: Ctrl-C comes then, not after a guessed delay.
    const waiting = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
        if (/^wait \d+ s: rate limited/m.test(stderr)) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await waiting;
    const interruptedAt = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - interruptedAt).toBeLessThan(1_000);
    expect(stderr).toContain('interrupted');
    expect(fault.requests).toHaveLength(1);
  });
});
