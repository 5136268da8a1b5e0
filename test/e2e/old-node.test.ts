import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/config-dir.js';
import { BIN } from '../helpers/run-binary.js';

// The built bin/pets.js run by a Node older than pets supports: the machine's own `node`
// (Node 20 here), found on PATH outside node_modules (npm puts Node 24 first), or the one
// PETS_TEST_OLD_NODE names.

function nodeVersion(path: string): string | undefined {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim().replace(/^v/, '') : undefined;
}

function isOld(version: string | undefined): version is string {
  const [major = 0, minor = 0] = (version ?? '').split('.').map(Number);
  return version !== undefined && (major < 22 || (major === 22 && minor < 19));
}

function findOldNode(): { path: string; version: string } | undefined {
  const candidates = [
    process.env.PETS_TEST_OLD_NODE,
    ...(process.env.PATH ?? '')
      .split(':')
      .filter((dir) => dir !== '' && !dir.includes('node_modules'))
      .map((dir) => join(dir, 'node')),
  ];
  for (const path of candidates) {
    if (!path || !existsSync(path)) continue;
    try {
      accessSync(path, constants.X_OK);
    } catch {
      continue;
    }
    const version = nodeVersion(path);
    if (isOld(version)) return { path, version };
  }
  return undefined;
}

const old = findOldNode();
if (!old) console.warn('no Node older than 22.19 on PATH: the old-Node tests are skipped');

describe.skipIf(!old)(`pets on an unsupported Node (${old?.path}, v${old?.version})`, () => {
  const run = (args: string[]) => {
    const home = tempDir('pets-old-node-');
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      PETS_CONFIG_DIR: join(home, 'config'),
      XDG_CACHE_HOME: join(home, 'cache'),
      PETS_BASE_URL: 'http://127.0.0.1:9/v1',
      PETS_API_KEY: 'never_sent_key_1234',
    };
    // A timeout: a sandbox that started would never end on its own.
    const result = spawnSync(old!.path, [BIN, ...args], { env, encoding: 'utf8', timeout: 10_000 });
    return { ...result, home };
  };

  it.each([
    ['--version'],
    ['--help'],
    ['list'],
    ['add', '--name', 'Rex', '--category-id', '1'],
    ['sandbox'],
    ['profile', 'list'],
    ['no-such-command'],
  ])('refuses `pets %s` with exit 1 and one line, before anything else runs', (...args) => {
    const result = run(args);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: pets needs Node.js 22.19 or newer, and this is Node ${old!.version}. ` +
        'Install a current Node (https://nodejs.org, or `nvm install 24`), ' +
        'or use the single executable pets-linux-x64, which needs no Node.\n',
    );
    // Nothing ran: no config folder, no compile cache.
    expect(existsSync(join(result.home, 'config'))).toBe(false);
    expect(existsSync(join(result.home, 'cache'))).toBe(false);
  });

  it('says it as one JSON object under --json and --jq', () => {
    for (const args of [
      ['list', '--json'],
      ['list', '--jq', '.[0].id'],
    ]) {
      const result = run(args);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        error: { code: 'unsupported_node', exitCode: 1 },
      });
    }
  });
});
