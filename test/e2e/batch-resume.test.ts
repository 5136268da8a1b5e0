import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { tempDir } from '../helpers/config-dir.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  // Slow answers keep the batch going long enough for an interrupt to land halfway.
  sandbox = await startSandbox({ plan: 'free', rpm: 600, rpd: 100_000, latencyMs: 40 });
});
afterAll(() => sandbox.close());

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
    const unlimited = await startSandbox({ plan: 'unlimited' });
    try {
      const dir = tempDir('pets-wide-');
      const input = join(dir, 'wide.ndjson');
      writeFileSync(
        input,
        Array.from({ length: 200 }, (_, i) =>
          JSON.stringify({ name: `W${i}`, categoryId: 1 }),
        ).join('\n'),
      );
      const env = apiEnv(unlimited, { PETS_PROFILE: 'staging' });
      const result = await runBinary(['add', '--file', input, '--concurrency', '16'], env);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(
        `created 200, failed 0, skipped 0, unknown 0 (journal: ${input}.pets-journal)\n`,
      );
      expect(unlimited.pets()).toHaveLength(200);
    } finally {
      await unlimited.close();
    }
  });
});
