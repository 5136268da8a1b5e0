// Every mistake with a path the user gave is one line, exit 2, saying why as the system does;
// never "failed unexpectedly" (#41, #42).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { BIN } from '../helpers/run-binary.js';
import { runMain } from '../helpers/run-main.js';
import { testSandbox } from '../helpers/sandbox.js';

async function refusal(args: (dir: string) => string[]) {
  const sandbox = await testSandbox();
  const dir = tempDir('pets-paths-');
  const result = await runMain(args(dir), apiEnv(sandbox, { PETS_PROFILE: 'staging' }));
  expect(result.stderr).not.toMatch(/unexpectedly/);
  // One error line (a hint may follow it).
  expect(result.stderr.match(/^error: /gm)).toHaveLength(1);
  expect(sandbox.pets()).toHaveLength(0);
  return result;
}

describe('a path the user gave that cannot be used', () => {
  it('--file naming no file says so, as the system does', async () => {
    const result = await refusal((dir) => ['add', '--file', join(dir, 'nosuch.csv')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--file .*nosuch\.csv cannot be read: no such file or directory \(ENOENT\)/,
    );
  });

  it.each([[[]], [['--dry-run']]])('--file naming a folder (%j)', async (extra) => {
    const result = await refusal((dir) => ['add', '--file', dir, ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--file .* cannot be read: .*directory \(EISDIR\)/);
  });

  it('--journal naming a folder', async () => {
    const result = await refusal((dir) => {
      writeFileSync(join(dir, 'in.csv'), 'name,categoryId\nRex,1\n');
      return ['add', '--file', join(dir, 'in.csv'), '--journal', dir];
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the journal .* cannot be written: .*directory \(EISDIR\)/);
  });

  it('api --input naming no file', async () => {
    const result = await refusal((dir) => ['api', '/pets', '--input', join(dir, 'nosuch.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--input .* cannot be read: no such file or directory \(ENOENT\)/,
    );
  });

  // As root every file is readable: the run is then a user's, through setpriv.
  const asUser =
    process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  it.skipIf(asUser.length > 0 && spawnSync('setpriv', ['--version']).status !== 0)(
    '--file the user may not read: permission denied',
    async () => {
      const sandbox = await testSandbox();
      const dir = tempDir('pets-paths-');
      chmodSync(dir, 0o777);
      const config = join(dir, 'config');
      mkdirSync(config, { mode: 0o777 });
      const secret = join(dir, 'secret.csv');
      writeFileSync(secret, 'name,categoryId\nRex,1\n', { mode: 0o000 });
      chmodSync(secret, 0o000);
      const [program, ...args] = [...asUser, process.execPath, BIN, 'add', '--file', secret];
      const env = { ...apiEnv(sandbox, { PETS_PROFILE: 'staging' }), PETS_CONFIG_DIR: config };
      const run = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn(program!, args, { env: { PATH: process.env.PATH, HOME: dir, ...env } });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
        child.on('close', (status) => resolve({ status, stderr }));
      });
      expect(run.stderr).toMatch(
        /--file .*secret\.csv cannot be read: permission denied \(EACCES\)/,
      );
      expect(run.status).toBe(2);
      expect(sandbox.pets()).toHaveLength(0);
    },
  );
});
