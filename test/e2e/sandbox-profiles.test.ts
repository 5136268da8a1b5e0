import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempConfigDir } from '../helpers/config-dir.js';
import { sendJson, startFaultServer } from '../helpers/fault-server.js';
import { BIN, EXECUTABLE } from '../helpers/run-binary.js';

// Issue 29, item 5: a second `pets sandbox` never re-points a profile a live sandbox uses.

interface Running {
  child: ChildProcess;
  /** stdout and stderr up to the line that says where the sandbox listens. */
  started: Promise<{ stdout: string; stderr: string }>;
  stop(): Promise<number | null>;
}

/** Starts the built pets sandbox, stopped (SIGINT) when the test ends if the test did not. */
function startSandbox(
  configDir: string,
  args: string[],
  // By default: text mode ends its start with "Press Ctrl-C"; --json with its line on stdout.
  until = (stdout: string, stderr: string) => /Press Ctrl-C/.test(stderr) || stdout.includes('}\n'),
  env: NodeJS.ProcessEnv = {},
): Running {
  const argv = ['sandbox', ...args];
  const [file, fileArgs] = EXECUTABLE ? [EXECUTABLE, argv] : [process.execPath, [BIN, ...argv]];
  const child = spawn(file, fileArgs, {
    env: { PATH: process.env.PATH, PETS_CONFIG_DIR: configDir, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    const check = () => {
      if (until(stdout, stderr)) resolve({ stdout, stderr });
    };
    child.stdout!.setEncoding('utf8').on('data', (text: string) => ((stdout += text), check()));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => ((stderr += text), check()));
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`sandbox exited (${code}): ${stderr}`)));
  });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    return exited;
  };
  onTestFinished(async () => void (await stop()));
  return { child, started, stop };
}

function profiles(configDir: string): Record<string, { baseUrl?: string; apiKey?: string }> {
  const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
    profiles: Record<string, { baseUrl?: string; apiKey?: string }>;
  };
  return config.profiles;
}

describe('pets sandbox and the profile it saves', () => {
  it('saves a second live sandbox as sandbox-2, says so, and reuses "sandbox" once the first stops', async () => {
    const dir = tempConfigDir();
    const first = startSandbox(dir, ['--json']);
    const one = JSON.parse((await first.started).stdout) as { baseUrl: string; key: string };
    expect(one).toMatchObject({ profile: 'sandbox' });
    const firstProfile = profiles(dir).sandbox;
    expect(firstProfile).toEqual({ baseUrl: one.baseUrl, apiKey: one.key });

    const second = startSandbox(dir, []);
    const { stdout, stderr } = await second.started;
    const secondUrl = /Sandbox API at (\S+)/.exec(stdout)![1]!;
    expect(stderr).toContain(
      `Profile "sandbox" belongs to a sandbox still running at ${one.baseUrl}, so this one is ` +
        `saved as profile "sandbox-2". Try: pets --profile sandbox-2 list, or make it the ` +
        `default with: pets profile use sandbox-2`,
    );
    expect(profiles(dir).sandbox).toEqual(firstProfile);
    expect(profiles(dir)['sandbox-2']).toMatchObject({ baseUrl: secondUrl });

    // Under --json the same news is one notice on stderr, and the profile is on stdout.
    const third = startSandbox(
      dir,
      ['--json'],
      (out, err) => out.includes('}\n') && err.includes('}\n'),
    );
    const thirdStart = await third.started;
    expect(JSON.parse(thirdStart.stdout)).toMatchObject({ profile: 'sandbox-3' });
    expect(JSON.parse(thirdStart.stderr.trim())).toEqual({
      notice: expect.objectContaining({
        code: 'profile_in_use',
        profile: 'sandbox-3',
        inUse: 'sandbox',
      }),
    });
    expect(profiles(dir).sandbox).toEqual(firstProfile);

    expect(await first.stop()).toBe(0);
    const fourth = startSandbox(dir, ['--json']);
    const four = JSON.parse((await fourth.started).stdout) as { baseUrl: string; key: string };
    expect(four).toMatchObject({ profile: 'sandbox' });
    expect(profiles(dir).sandbox).toEqual({ baseUrl: four.baseUrl, apiKey: four.key });
    expect(profiles(dir)['sandbox-2']).toMatchObject({ baseUrl: secondUrl });
    expect((await fourth.started).stderr).toBe('');
  });

  it('asks a sandbox on this machine directly, whatever proxy Node is told to use', async () => {
    const dir = tempConfigDir();
    const first = startSandbox(dir, ['--json']);
    const one = JSON.parse((await first.started).stdout) as { baseUrl: string };
    // A proxy that refuses: asked through it, the running sandbox would seem gone.
    const proxy = { HTTP_PROXY: 'http://127.0.0.1:9', NODE_USE_ENV_PROXY: '1' };
    const second = startSandbox(dir, ['--json'], undefined, proxy);
    expect(JSON.parse((await second.started).stdout)).toMatchObject({ profile: 'sandbox-2' });
    expect(profiles(dir).sandbox).toMatchObject({ baseUrl: one.baseUrl });
  });

  it('reuses a profile whose port another server answers on: only the sandbox itself proves it is alive', async () => {
    const impostor = await startFaultServer();
    onTestFinished(() => impostor.close());
    impostor.handle((_req, res) => sendJson(res, 200, '"0123456789abcdef"'));
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const config = {
      profiles: { sandbox: { baseUrl: impostor.baseUrl, apiKey: 'old_key_abcdef' } },
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    const run = startSandbox(dir, ['--json']);
    const started = await run.started;
    expect(JSON.parse(started.stdout)).toMatchObject({ profile: 'sandbox' });
    expect(started.stderr).toBe('');
    // It was asked once, and sent no key: the question carries only a nonce.
    expect(impostor.requests).toHaveLength(1);
    expect(impostor.requests[0]!.url).toMatch(/^\/\.pets-sandbox\?nonce=[0-9a-f]{32}$/);
    expect(impostor.requests[0]!.headers.authorization).toBeUndefined();
  });

  it.each([
    ['production', 'https://api.example.com/v1', {}],
    ['team', 'https://api.example.com/v1', {}],
    ['local', 'http://127.0.0.1:9/v1', { protected: true }],
  ])(
    "never re-points %s (%s), some server's profile: saved as NAME-2, and nothing sent there",
    async (name, baseUrl, extra) => {
      const dir = tempConfigDir();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const kept = { baseUrl, apiKey: 'team_key_abcdef123456', ...extra };
      const config = { profiles: { [name]: kept } };
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
      const run = startSandbox(dir, ['--save-profile', name]);
      const { stderr } = await run.started;
      expect(stderr).toContain(
        `Profile "${name}" points at ${baseUrl}, not at a sandbox, so this one is saved as ` +
          `profile "${name}-2".`,
      );
      expect(profiles(dir)[name]).toEqual(kept);
      expect(profiles(dir)[`${name}-2`]).toMatchObject({
        baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/),
      });
    },
  );
});
