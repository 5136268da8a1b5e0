import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IoOptions } from '../../helpers/io.js';
import { tempConfigDir, tempDir } from '../../helpers/config-dir.js';
import { runMain } from '../../helpers/run-main.js';
import { runSandboxCommand } from '../../helpers/sandbox-command.js';

/** Runs `pets sandbox` in this process, sends it `requests`, then stops it as Ctrl-C would. */
async function sandboxSession(args: string[], io: IoOptions, requests: string[]) {
  const statuses: number[] = [];
  let key = '';
  const { code, err } = await runSandboxCommand(args, {
    io,
    during: async (out) => {
      const baseUrl = /(http:\/\/\S+\/v1)/.exec(out)![1]!;
      key = (/Key: (\S+)/.exec(out) ?? /"key":"([^"]+)"/.exec(out))![1]!;
      for (const path of requests) {
        const reply = await fetch(`${baseUrl}${path}`, {
          headers: path.includes('nokey') ? {} : { authorization: `Bearer ${key}` },
        });
        await reply.arrayBuffer();
        statuses.push(reply.status);
      }
    },
  });
  return { code, statuses, key, stderr: err };
}

describe('the sandbox log', () => {
  it('writes one line per request on a terminal: method, path, status, remaining', async () => {
    const { code, stderr, key } = await sandboxSession(['--seed', '3'], { stderrIsTTY: true }, [
      '/pets?limit=2',
      '/pets/999',
      '/pets?nokey',
    ]);
    expect(code).toBe(0);
    const lines = stderr.split('\n').filter((line) => /^\d\d:\d\d:\d\d /.test(line));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d GET \/v1\/pets\?limit=2 200 remaining 59$/);
    expect(lines[1]).toMatch(/ GET \/v1\/pets\/999 404 remaining 58$/);
    expect(lines[2]).toMatch(/ GET \/v1\/pets\?nokey 401 remaining \d+$/);
    expect(stderr).not.toContain(key);
    expect(stderr.trim().split('\n').at(-1)).toBe('Sandbox stopped after 3 requests.');
  });

  it('logs nothing with --quiet, in a pipe, or with --json', async () => {
    const quiet = await sandboxSession(['--quiet'], { stderrIsTTY: true }, ['/pets']);
    expect(quiet.stderr).toBe('');
    const piped = await sandboxSession([], {}, ['/pets']);
    expect(piped.stderr).not.toMatch(/GET \/v1\/pets/);
    expect(piped.stderr).toContain('Sandbox stopped after 1 request.');
    const json = await sandboxSession(['--json'], { stderrIsTTY: true }, ['/pets']);
    expect(json.stderr).not.toMatch(/GET \/v1\/pets/);
  });
});

describe('the sandbox key', () => {
  it('refuses a --key every other command would refuse, with exit 2, and saves nothing', async () => {
    const env = { PETS_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const { code, stdout, stderr } = await runMain(['sandbox', '--key', 'abc'], env);
    expect(code).toBe(2);
    expect(stderr).toContain('--key is 3 characters long');
    expect(stderr).toContain('the sandbox did not start');
    expect(stdout).toBe('');
  });
});

describe('the sandbox data file', () => {
  it('refuses one it cannot use as the file to fix (exit 2), not as a fault of pets', async () => {
    const dir = tempDir('pets-data-');
    const files = { 'not JSON': 'SECRET {', 'not a store': '{"nextId":"1","pets":[{"id":1}]}' };
    for (const [what, text] of Object.entries(files)) {
      const file = join(dir, `${what}.json`);
      writeFileSync(file, text);
      const env = { PETS_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
      const { code, stdout, stderr } = await runMain(['sandbox', '--data', file], env);
      expect(code, what).toBe(2);
      expect(stderr, what).toContain(`error: sandbox data file ${file} is not valid`);
      expect(stderr, what).toContain('Fix the file, or start with --data naming another');
      expect(stderr, what).not.toMatch(/unexpectedly|SECRET/);
      expect(stdout, what).toBe('');
    }
  });
});
