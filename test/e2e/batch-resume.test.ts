import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { tempDir } from '../helpers/config-dir.js';
import { testSandbox } from '../helpers/sandbox.js';

let sandbox: RunningSandbox;
beforeEach(async () => {
  // Slow answers keep the batch going long enough for an interrupt to land halfway.
  sandbox = await testSandbox({ plan: 'free', rpm: 600, rpd: 100_000, latencyMs: 40 });
});

describe('an interrupted batch', () => {
  it('saves its journal on SIGINT, exits 130, and resumes creating every record exactly once', async () => {
    const dir = tempDir('pets-resume-');
    const input = join(dir, 'pets.ndjson');
    const names = Array.from({ length: 40 }, (_, i) => `Resume ${i}`);
    writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });

    const child = spawn(process.execPath, [BIN, 'add', '--file', input], {
      env: { PATH: process.env.PATH, ...env },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    while (sandbox.pets().length < 8) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const createdFirst = sandbox.pets().length;
    expect(createdFirst).toBeLessThan(40);
    expect(stderr).toMatch(/created \d+, failed 0, skipped 0, unknown \d+, not sent [1-9]\d*/);
    expect(stderr).toContain(`Resume with: pets --profile staging add --file ${input}`);

    const resumed = await runBinary(['add', '--file', input], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`skipped ${createdFirst}`);
    const stored = sandbox
      .pets()
      .map((pet) => pet.name)
      .sort();
    expect(stored).toEqual([...names].sort());
  });

  it('runs a wide batch without a word from Node on stderr', async () => {
    const unlimited = await testSandbox({ plan: 'unlimited' });
    const dir = tempDir('pets-wide-');
    const input = join(dir, 'wide.ndjson');
    writeFileSync(
      input,
      Array.from({ length: 200 }, (_, i) => JSON.stringify({ name: `W${i}`, categoryId: 1 })).join(
        '\n',
      ),
    );
    const env = apiEnv(unlimited, { PETS_PROFILE: 'staging' });
    const result = await runBinary(['add', '--file', input, '--concurrency', '16'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `created 200, failed 0, skipped 0, unknown 0 (journal: ${input}.pets-journal)\n`,
    );
    expect(unlimited.pets()).toHaveLength(200);
  });
});

describe('the resume command', () => {
  it('run exactly as printed, finishes the work with every option of the run', async () => {
    const dir = tempDir('pets-resume-as-printed-');
    // A name the shell must have quoted, and an extension that does not tell the format.
    const input = join(dir, "the pets' list.txt");
    const journal = join(dir, 'a journal');
    const names = Array.from({ length: 40 }, (_, i) => `Printed ${i}`);
    writeFileSync(input, `name,categoryId\n${names.map((name) => `${name},1`).join('\n')}\n`);
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const options = [
      '--format',
      'csv',
      '--journal',
      journal,
      '--concurrency',
      '2',
      '--retry-unknown',
    ];

    const child = spawn(
      process.execPath,
      [BIN, '--max-wait', '600', 'add', '--file', input, ...options, '--yes'],
      { env: { PATH: process.env.PATH, ...env } },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const before = sandbox.pets().length;
    while (sandbox.pets().length < before + 8) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const resume = /Resume with: (.*)/.exec(stderr)?.[1] ?? '';
    // Every option the run was given, as the shell reads it back; never --yes.
    const words = execFileSync('sh', ['-c', `printf '%s\\n' ${resume}`], { encoding: 'utf8' })
      .trimEnd()
      .split('\n');
    expect(words).toEqual([
      'pets',
      '--profile',
      'staging',
      '--max-wait',
      '600',
      'add',
      '--file',
      input,
      ...options,
    ]);

    // Run by a shell, as a person pastes it, with no PETS_PROFILE to fall back on.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'pets'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const { PETS_PROFILE: _dropped, ...noProfile } = env;
    const resumed = await runShell(resume, { ...noProfile, PATH: `${bin}:${process.env.PATH}` });
    expect(resumed.stderr).toMatch(
      /created \d+, failed 0, skipped [1-9]\d*, unknown 0 \(journal: /,
    );
    expect(resumed.code).toBe(0);
    const stored = sandbox
      .pets()
      .map((pet) => pet.name)
      .filter((name) => name.startsWith('Printed '))
      .sort();
    expect(stored).toEqual([...names].sort());
  });
});

describe('a dry run', () => {
  it('sends no POST, counted by the server, and leaves the work for the real run', async () => {
    const dir = tempDir('pets-dry-e2e-');
    const input = join(dir, 'dry.csv');
    const names = Array.from({ length: 25 }, (_, i) => `Dry ${i}`);
    writeFileSync(input, `name,categoryId\n${names.map((name) => `${name},1`).join('\n')}\n`);
    const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
    const posts = () => sandbox.requestLog.filter((entry) => entry.method === 'POST').length;
    const before = posts();

    const dry = await runBinary(['add', '--file', input, '--dry-run', '--json'], env);
    expect(dry.code).toBe(0);
    expect(posts()).toBe(before);
    expect(JSON.parse(dry.stdout)).toMatchObject({ records: { total: 25, toSend: 25 } });

    const real = await runBinary(['add', '--file', input, '-q'], env);
    expect(real.code).toBe(0);
    expect(posts()).toBe(before + 25);
  });
});

/** Runs a command line as a shell does, without blocking the sandbox in this process. */
async function runShell(
  line: string,
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('sh', ['-c', line], { env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stderr };
}
