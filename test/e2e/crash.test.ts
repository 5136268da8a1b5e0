import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../ratelimit/simulation.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { startStrictServer } from '../helpers/strict-server.js';
import { trials } from '../helpers/trials.js';

// A crash harness: the built binary imports records from a server that answers slowly, and is
// ended at a random moment in one of the ways users end it; then the same command resumes.
// Counted from the server's own records: no record is created twice, and each record is
// either created or reported unknown (held back, to be checked) by the resumed run.

const KINDS = [
  'SIGKILL',
  'SIGHUP',
  'double SIGINT',
  'closed stdout',
  'SIGTERM',
  'single SIGINT',
] as const;
type Kind = (typeof KINDS)[number];
const TRIALS = trials(30, 8);
const RECORDS = 30;
const BASE = Number(process.env.CRASH_SEED_BASE ?? 0);

interface Trial {
  seed: number;
  kind: Kind;
  /** Creates the server has received when the run is ended. */
  after: number;
  extraMs: number;
}

function trialFor(seed: number): Trial {
  const random = seededRandom(seed * 104_729);
  return {
    seed,
    kind: KINDS[seed % KINDS.length]!,
    after: 1 + Math.floor(random() * 20),
    extraMs: Math.floor(random() * 40),
  };
}

const until = async (done: () => boolean, limitMs = 10_000) => {
  const deadline = Date.now() + limitMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
};

describe('a batch ended at a random moment, then resumed', () => {
  const trials = Array.from({ length: TRIALS }, (_, i) => trialFor(BASE + i + 1));
  it.each(trials)('seed $seed: $kind after $after creates', async (trial) => {
    const random = seededRandom(trial.seed);
    const server = await startStrictServer({
      limit: 1_000_000,
      windowMs: 60_000,
      latencyMs: () => 20 + Math.floor(random() * 80),
    });
    try {
      const dir = tempDir('pets-crash-');
      const input = join(dir, 'records.ndjson');
      const names = Array.from({ length: RECORDS }, (_, i) => `T${trial.seed}-${i}`);
      writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
      const env = apiEnv(server, { PATH: process.env.PATH ?? '', PETS_PROFILE: 'staging' });

      const child = spawn(process.execPath, [BIN, 'add', '--file', input, '--json'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      if (trial.kind !== 'closed stdout') child.stdout.resume();
      const exited = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      await until(() => server.created.length >= trial.after);
      await new Promise((r) => setTimeout(r, trial.extraMs));
      switch (trial.kind) {
        case 'SIGKILL':
          child.kill('SIGKILL');
          break;
        case 'SIGHUP':
        case 'SIGTERM':
          child.kill(trial.kind);
          break;
        case 'single SIGINT':
          child.kill('SIGINT');
          break;
        case 'double SIGINT':
          child.kill('SIGINT');
          setTimeout(() => child.kill('SIGINT'), 2);
          break;
        case 'closed stdout':
          child.stdout.destroy();
          break;
      }
      const code = await exited;
      if (trial.kind !== 'SIGKILL' && server.created.length < RECORDS) {
        // Ended early by the user: never reported as done, with the signal's exit code.
        expect(code, stderr).toBe(
          trial.kind === 'SIGTERM' ? 143 : trial.kind === 'SIGHUP' ? 129 : 130,
        );
        expect(stderr).toMatch(/Resume with: pets --profile staging add --file/);
        // Only the second Ctrl-C leaves at once, without a summary; every other stop counts
        // what it left unsent.
        if (trial.kind !== 'double SIGINT') expect(stderr).toMatch(/, not sent \d+ \(journal/);
      }

      const resumed = await runBinary(['add', '--file', input, '--json'], env);
      const lines = resumed.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { line: number; error?: { code: string } });
      const unknown = new Set(
        lines.filter((l) => l.error?.code === 'outcome_unknown').map((l) => names[l.line - 1]),
      );
      const counts = new Map<string, number>();
      for (const name of server.created) counts.set(name, (counts.get(name) ?? 0) + 1);
      const duplicates = [...counts].filter(([, n]) => n > 1);
      const unaccounted = names.filter((name) => !counts.has(name) && !unknown.has(name));
      console.log(
        `seed ${trial.seed} (${trial.kind} after ${trial.after}): ${server.created.length} creates, ` +
          `${duplicates.length} duplicates, ${unknown.size} unknown, exit ${code} then ${resumed.code}`,
      );
      expect(duplicates, `seed ${trial.seed}`).toEqual([]);
      expect(unaccounted, `seed ${trial.seed}`).toEqual([]);
      expect([0, 1]).toContain(resumed.code);
    } finally {
      await server.close();
    }
  });
});

describe('a journal in the way', () => {
  const setUp = async () => {
    const server = await startStrictServer({ limit: 1_000_000, windowMs: 60_000, latencyMs: 30 });
    const dir = tempDir('pets-journal-');
    const input = join(dir, 'records.ndjson');
    const names = Array.from({ length: 60 }, (_, i) => `J${i}`);
    writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
    const env = apiEnv(server, { PATH: process.env.PATH ?? '', PETS_PROFILE: 'staging' });
    return { server, input, names, env };
  };

  it('a second run on a journal in use is refused at once, naming the process', async () => {
    const { server, input, env } = await setUp();
    try {
      const first = spawn(process.execPath, [BIN, 'add', '--file', input, '-q'], { env });
      const done = new Promise<number | null>((resolve) => first.on('exit', resolve));
      await until(() => server.created.length >= 2);
      const second = await runBinary(['add', '--file', input], env);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`in use by another pets (process ${first.pid})`);
      expect(await done).toBe(0);
      const counts = new Set(server.created);
      expect(counts.size).toBe(server.created.length);
      expect(server.created).toHaveLength(60);
    } finally {
      await server.close();
    }
  });

  it('is refused against another target, saying whose it is and how to start fresh', async () => {
    const { server, input, env } = await setUp();
    const other = await startStrictServer({
      limit: 1_000_000,
      windowMs: 60_000,
      key: 'other_key_0123456789',
    });
    try {
      expect((await runBinary(['add', '--file', input, '-q'], env)).code).toBe(0);
      const elsewhere = { ...env, PETS_BASE_URL: other.baseUrl, PETS_API_KEY: other.key };
      const refused = await runBinary(['add', '--file', input], elsewhere);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`belongs to profile "staging" at ${server.baseUrl} (key `);
      expect(refused.stderr).toContain('--journal <new path>');
      expect(other.requests).toHaveLength(0);
    } finally {
      await Promise.all([server.close(), other.close()]);
    }
  });

  it('an unwritable journal is exit 2 before anything is sent', async () => {
    const { server, input, env } = await setUp();
    try {
      const run = await runBinary(
        ['add', '--file', input, '--journal', '/nonexistent/x.journal'],
        env,
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/cannot be written/);
      const zero = await runBinary(['add', '--file', input, '--journal', '/dev/zero'], env);
      expect(zero.code).toBe(2);
      expect(zero.stderr).toMatch(/not a regular file/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('a full disk midway stops the run cleanly; the resume duplicates nothing', async () => {
    const { server, input, names, env } = await setUp();
    try {
      // 4 KiB of file for this process: the journal fills it partway through.
      const full = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          'bash',
          [
            '--norc',
            '--noprofile',
            '-c',
            `ulimit -f 4; exec "${process.execPath}" "${BIN}" add --file "${input}"`,
          ],
          { env },
        );
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
      expect(full.code, full.stderr).toBe(1);
      expect(full.stderr).toMatch(/could not be written \(EFBIG\)/);
      expect(full.stderr).toMatch(/not sent \d+/);
      expect(server.created.length).toBeLessThan(60);

      const resumed = await runBinary(['add', '--file', input, '--json'], env);
      const unknown = resumed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { line: number; error?: { code: string } })
        .filter((l) => l.error?.code === 'outcome_unknown')
        .map((l) => names[l.line - 1]);
      expect(new Set(server.created).size).toBe(server.created.length);
      expect(names.filter((n) => !server.created.includes(n) && !unknown.includes(n))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
