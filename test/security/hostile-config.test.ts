import {
  chmodSync,
  chownSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { testFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { runBinary } from '../helpers/run-binary.js';
import { runMain } from '../helpers/run-main.js';

// Planted folders and files, as another user (uid 65534, "nobody") would leave them. The
// tests run as root in CI, which can chown to any uid; elsewhere they are skipped.
const CANARY = 'sk_live_CANARY_planted_7c41b8d3';
const OTHER_UID = 65534;
const canChown = process.getuid?.() === 0;

let fault: FaultServer;
beforeEach(async () => {
  fault = await testFaultServer();
});

/** A config folder holding a profile that sends keys to the fault server ("the attacker"). */
function plantedConfig(): { dir: string; file: string } {
  const dir = tempConfigDir();
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      activeProfile: 'production',
      profiles: { production: { baseUrl: fault.baseUrl } },
    }),
    { mode: 0o600 },
  );
  return { dir, file };
}

const login = (dir: string, key = CANARY) =>
  runMain(['auth', 'login', '--with-key'], { PETS_CONFIG_DIR: dir }, { stdin: `${key}\n` });

function expectRefused(result: { code: number; stderr: string; stdout: string }, why: string) {
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(why);
  expect(result.stderr).not.toContain('unexpectedly');
  expect(result.stdout + result.stderr).not.toContain(CANARY);
}

describe('a planted config folder', () => {
  it.runIf(canChown)(
    'refuses a folder owned by another user, and stores no key in it',
    async () => {
      const { dir, file } = plantedConfig();
      chownSync(dir, OTHER_UID, OTHER_UID);
      const before = fault.requests.length;
      const result = await login(dir);
      expectRefused(result, `the config folder ${dir} belongs to another user (uid ${OTHER_UID})`);
      expect(result.stderr).toContain('PETS_CONFIG_DIR');
      expect(readFileSync(file, 'utf8')).not.toContain(CANARY);
      expectRefused(
        await runMain(['list'], { PETS_CONFIG_DIR: dir, PETS_API_KEY: CANARY }),
        'belongs to another user',
      );
      expect(fault.requests.length).toBe(before);
    },
  );

  it.runIf(canChown)(
    'refuses a config.json owned by another user, so its owner never reads the key',
    async () => {
      const { file, dir } = plantedConfig();
      chownSync(file, OTHER_UID, OTHER_UID);
      const result = await login(dir);
      expectRefused(result, `the config file ${file} belongs to another user`);
      expect(readFileSync(file, 'utf8')).not.toContain(CANARY);
      expect(statSync(file).uid).toBe(OTHER_UID);
    },
  );

  it('refuses a folder or file that others can write', async () => {
    const planted = plantedConfig();
    chmodSync(planted.dir, 0o777);
    expectRefused(await login(planted.dir), 'can be changed by other users (mode 777)');
    expect(readFileSync(planted.file, 'utf8')).not.toContain(CANARY);

    const writable = plantedConfig();
    chmodSync(writable.file, 0o666);
    const result = await login(writable.dir);
    expectRefused(result, `the config file ${writable.file} can be changed by other users`);
    expect(result.stderr).toContain(`chmod 600 ${writable.file}`);
    expect(readFileSync(writable.file, 'utf8')).not.toContain(CANARY);
  });

  it('never follows a symlinked config.json, and says so instead of crashing', async () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { mode: 0o700 });
    const elsewhere = join(dirname(dir), 'attacker.json');
    writeFileSync(
      elsewhere,
      JSON.stringify({ profiles: { production: { baseUrl: fault.baseUrl } } }),
    );
    symlinkSync(elsewhere, join(dir, 'config.json'));
    const before = fault.requests.length;
    expectRefused(await login(dir), 'is a symbolic link, which pets does not follow');
    expect(readFileSync(elsewhere, 'utf8')).not.toContain(CANARY);
    expectRefused(
      await runMain(['list'], { PETS_CONFIG_DIR: dir, PETS_API_KEY: CANARY }),
      'symbolic link',
    );
    expect(fault.requests.length).toBe(before);
  });

  it('writes the key as the current user, 0600, by renaming a new file over the old one', async () => {
    const { dir, file } = plantedConfig();
    chmodSync(file, 0o644);
    const inode = statSync(file).ino;
    const result = await login(dir);
    expect(result.code).toBe(0);
    const after = statSync(file);
    expect(after.ino).not.toBe(inode);
    expect(after.mode & 0o777).toBe(0o600);
    expect(after.uid).toBe(process.getuid?.());
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.production.apiKey).toBe(CANARY);
  });

  it('auth login names the profile and the host the key will be sent to', async () => {
    const { dir } = plantedConfig();
    const result = await login(dir);
    expect(result.stderr).toContain(
      `Saved the key ****${CANARY.slice(-4)} for profile "production", which sends it to ${new URL(fault.baseUrl).host}.`,
    );
    const bare = tempConfigDir();
    const first = await runMain(
      ['auth', 'login', '--with-key', '--profile', 'staging'],
      { PETS_CONFIG_DIR: bare },
      { stdin: `${CANARY}\n` },
    );
    expect(first.stderr).toContain('for profile "staging", which has no base URL yet');
  });
});

describe('the built binary, on a planted config', () => {
  it('refuses a symlinked config.json and a folder others can write, with exit 2 and no crash', async () => {
    const linked = tempConfigDir();
    mkdirSync(linked, { mode: 0o700 });
    const target = join(dirname(linked), 'elsewhere.json');
    writeFileSync(target, '{}');
    symlinkSync(target, join(linked, 'config.json'));
    const viaLink = await runBinary(
      ['auth', 'login', '--with-key'],
      { PETS_CONFIG_DIR: linked },
      `${CANARY}\n`,
    );
    expectRefused(viaLink, 'is a symbolic link, which pets does not follow');
    expect(readFileSync(target, 'utf8')).toBe('{}');

    const open = plantedConfig();
    chmodSync(open.dir, 0o777);
    const before = fault.requests.length;
    const listed = await runBinary(['list'], { PETS_CONFIG_DIR: open.dir, PETS_API_KEY: CANARY });
    expectRefused(listed, 'can be changed by other users');
    expect(listed.stderr).toContain(`chmod 700 ${open.dir}`);
    expect(fault.requests.length).toBe(before);
  }, 20_000);
});

describe('keys that are not visible ASCII', () => {
  it.each([
    ['Cyrillic', 'ключ_sk_live_1234'],
    ['a CR inside', 'sk_live_12\r34567890'],
    ['a space inside', 'sk_live_12 34567890'],
    ['a tab', 'sk_live_12\t34567890'],
    ['a non-breaking space', 'sk_live_12\u00a034567890'],
    ['DEL', 'sk_live_12\u007f34567890'],
  ])('auth login refuses %s with exit 2 and saves nothing', async (_what, key) => {
    const { dir, file } = plantedConfig();
    const result = await login(dir, key);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not visible ASCII');
    expect(result.stderr).not.toContain(key);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.production.apiKey).toBeUndefined();
  });

  it.each([
    ['Cyrillic', 'ключ'],
    ['a CR', 'sk_live_1234\r'],
    ['a newline inside', 'sk_live_12\n34'],
  ])('PETS_API_KEY with %s exits 4 with nothing sent and no retries', async (_what, key) => {
    const { dir } = plantedConfig();
    const before = fault.requests.length;
    for (const args of [['list'], ['add', '--name', 'Rex', '--category-id', '1']]) {
      const result = await runMain(args, { PETS_CONFIG_DIR: dir, PETS_API_KEY: key });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('PETS_API_KEY has a character that is not visible ASCII');
      expect(result.stderr).toContain('nothing was sent');
      expect(result.stderr).not.toContain('may have');
    }
    expect(fault.requests.length).toBe(before);
  });
});

describe('http://*.localhost', () => {
  it('is not loopback: refused with exit 2 before any lookup, from a flag or PETS_BASE_URL', async () => {
    const dir = tempConfigDir();
    const set = await runMain(
      ['profile', 'set', 'dev', '--base-url', 'http://api.localhost:8080/v1'],
      {
        PETS_CONFIG_DIR: dir,
      },
    );
    expect(set.code).toBe(2);
    expect(set.stderr).toContain('use http://127.0.0.1:8080/v1 or https');
    const list = await runMain(['list'], {
      PETS_CONFIG_DIR: dir,
      PETS_BASE_URL: 'http://evil.localhost/v1',
      PETS_API_KEY: CANARY,
    });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('evil.localhost is looked up in DNS');
  });
});
