import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { runMain } from '../helpers/run-main.js';

// A hostile server tries to drive the terminal through a pet name and an error message.
const HOSTILE_NAME = 'Rex\u001b]0;pwned\u0007\u001b[2J\u009b31m\r\b\u0000\u007f\u202eevil\u2066';
let fault: FaultServer;

beforeAll(async () => {
  fault = await startFaultServer();
});
afterAll(() => fault.close());

const env = () => ({
  PETS_CONFIG_DIR: tempConfigDir(),
  PETS_PROFILE: 'staging',
  PETS_BASE_URL: fault.baseUrl,
  PETS_API_KEY: 'key_0123456789',
});
// Tab and newline are TSV's own separators; nothing else may pass raw.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('server text on the terminal', () => {
  const listBody = JSON.stringify([{ id: 1, name: HOSTILE_NAME, categoryId: 2, status: 'sold' }]);

  it('is escaped in a table, in TSV and in JSON', async () => {
    fault.handle((_req, res) => sendJson(res, 200, listBody));
    for (const [args, tty] of [
      [['list', '--no-color'], true],
      [['list'], false],
      [['list', '--json'], false],
    ] as const) {
      const result = await runMain([...args], env(), { stdoutIsTTY: tty });
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(RAW_CONTROL);
      expect(result.stdout).toContain('\\u001b]0;pwned\\u0007');
      expect(result.stdout).toContain('\\u202eevil');
    }
  });

  it('keeps JSON exact while escaping it', async () => {
    fault.handle((_req, res) => sendJson(res, 200, listBody));
    const result = await runMain(['list', '--json'], env());
    expect(JSON.parse(result.stdout)[0].name).toBe(HOSTILE_NAME);
  });

  it('is escaped in error messages, as text and as JSON', async () => {
    fault.handle((_req, res) =>
      sendJson(
        res,
        400,
        JSON.stringify({ code: 'bad', message: `no\u001b[31m\nway\u202e`, status: 400 }),
      ),
    );
    const text = await runMain(['add', '--name', 'A', '--category-id', '1'], env());
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('no\\u001b[31m\\u000away\\u202e');
    expect(text.stderr).not.toMatch(RAW_CONTROL);
    const json = await runMain(['add', '--name', 'A', '--category-id', '1', '--json'], env());
    expect(json.stderr).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(json.stderr).error.message).toContain('no\u001b[31m\nway\u202e');
  });
});
