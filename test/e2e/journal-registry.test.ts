import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { duplicatesOf, until } from '../helpers/batch-runs.js';
import { tempDir } from '../helpers/config-dir.js';
import { runBinary, startBinary } from '../helpers/run-binary.js';
import { startStrictServer, type StrictServer } from '../helpers/strict-server.js';
import { trials } from '../helpers/trials.js';

// The registry of a target's journals (src/batch/journal-registry.ts), through the built
// binary against a server that counts duplicates: runs started at once on copies of one input,
// records piped from stdin, and entries that no longer stand for records.

let server: StrictServer;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  server = await startStrictServer({ limit: 1_000_000, windowMs: 60_000 });
  dir = tempDir('pets-journal-registry-');
  env = apiEnv(server, { PETS_PROFILE: 'staging' });
});
afterEach(() => server.close());

const ndjson = (names: string[]) =>
  names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n');

/** The registry's entries for the one target of these tests. */
function registryEntries(): Array<{ journal: string; head: string[] }> {
  const folder = join(env.PETS_CONFIG_DIR!, 'state', 'journals');
  const files = readdirSync(folder).filter((name) => /^[0-9a-f]{16}$/.test(name));
  expect(files).toHaveLength(1);
  return readFileSync(join(folder, files[0]!), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { journal: string; head: string[] });
}

describe('copies of one input started at the same moment', () => {
  const TRIALS = Number(process.env.PETS_SIMULTANEOUS_TRIALS ?? trials(21, 4));

  it(
    `one run sends, the others are refused: 0 duplicates (${TRIALS} trials, 2 to 4 runs each)`,
    async () => {
      let started = 0;
      let refused = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const runs = 2 + (trial % 3);
        const names = Array.from({ length: 20 }, (_, i) => `T${trial}-${i}`);
        const first = join(dir, `t${trial}-0.ndjson`);
        writeFileSync(first, ndjson(names));
        // Copies by other names; every third a link to a copy (the same journal, by real path).
        const inputs = [first];
        for (let n = 1; n < runs; n++) {
          const path = join(dir, `t${trial}-${n}.ndjson`);
          if (n % 3 === 2) symlinkSync(inputs[n - 1]!, path);
          else copyFileSync(first, path);
          inputs.push(path);
        }
        const results = await Promise.all(
          inputs.map((input) => runBinary(['add', '--file', input, '-q'], env)),
        );
        started += runs;
        const codes = results.map((run) => run.code);
        const context = results.map((r) => r.stderr).join('\n');
        // One run sends them all. Each other is refused before sending anything, but for a
        // link to an input whose run has ended by the time it starts (a loaded machine): it
        // finds the same journal, and resumes it with nothing left to send.
        expect(
          codes.every((code) => code === 0 || code === 2),
          context,
        ).toBe(true);
        for (const run of results.filter((r) => r.code === 2)) {
          expect(run.stderr).toMatch(/being sent by another run|already in the journal|is in use/);
        }
        refused += codes.filter((code) => code === 2).length;
        expect(server.created, context).toHaveLength((trial + 1) * 20);
        expect(duplicatesOf(server.created)).toEqual([]);
      }
      expect(server.created).toHaveLength(TRIALS * 20);
      console.log(
        `simultaneous starts: ${TRIALS} trials, ${started} runs, ${refused} refused, 0 duplicates`,
      );
    },
    60_000 + TRIALS * 10_000,
  );
});

describe('records from stdin', () => {
  const names = Array.from({ length: 60 }, (_, i) => `S${i}`);

  it('piped again under a new journal: refused, naming the journal and its resume; resumed by it, nothing twice', async () => {
    const j1 = join(dir, 'first.journal');
    const j2 = join(dir, 'second.journal');
    // A first run piped 25 of the 60.
    const firstRun = await runBinary(
      ['add', '--file', '-', '--journal', j1, '-q'],
      env,
      ndjson(names.slice(0, 25)),
    );
    expect(firstRun.code, firstRun.stderr).toBe(0);
    expect(server.created).toHaveLength(25);

    const refused = await runBinary(['add', '--file', '-', '--journal', j2], env, ndjson(names));
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`25 records of stdin are already in the journal ${j1}`);
    expect(refused.stderr).toContain(`--journal ${j1}`);
    expect(existsSync(j2)).toBe(false);
    expect(server.created).toHaveLength(25);
    // A dry run says so too, and writes nothing.
    const dry = await runBinary(
      ['add', '--file', '-', '--journal', j2, '--dry-run'],
      env,
      ndjson(names),
    );
    expect(dry.code, dry.stderr).toBe(2);
    expect(dry.stderr).toContain(`25 records of stdin are already in the journal ${j1}`);
    expect(existsSync(j2)).toBe(false);

    // Records that overlap further in (new ones first) are found too.
    const shifted = ndjson([...['new1', 'new2'], ...names.slice(10)]);
    const again = await runBinary(['add', '--file', '-', '--journal', j2], env, shifted);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`15 records of stdin are already in the journal ${j1}`);

    // The same records piped to the first journal: only the rest is sent.
    const resumed = await runBinary(
      ['add', '--file', '-', '--journal', j1, '-q'],
      env,
      ndjson(names),
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(duplicatesOf(server.created)).toEqual([]);
    expect(server.created).toHaveLength(60);

    // --new-run sends them again, as asked.
    const forced = await runBinary(
      ['add', '--file', '-', '--journal', j2, '--new-run', '-q'],
      env,
      ndjson(names.slice(0, 5)),
    );
    expect(forced.code, forced.stderr).toBe(0);
    expect(duplicatesOf(server.created)).toHaveLength(5);
  });

  it('a run on stdin under way is found by one started on a copy of its records at the same moment', async () => {
    const slow = await startStrictServer({ limit: 1e6, windowMs: 60_000, latencyMs: 40 });
    try {
      const slowEnv = apiEnv(slow, { PETS_PROFILE: 'staging' });
      const piped = startBinary(
        ['add', '--file', '-', '--journal', join(dir, 'piped.journal'), '-q'],
        slowEnv,
      );
      piped.write(ndjson(names));
      await until(() => slow.created.length >= 1);
      const file = join(dir, 'same.ndjson');
      writeFileSync(file, ndjson(names));
      const second = await runBinary(['add', '--file', file], slowEnv);
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toMatch(/being sent by another run|already in the journal/);
      expect((await piped.done).code).toBe(0);
      expect(duplicatesOf(slow.created)).toEqual([]);
      expect(slow.created).toHaveLength(60);
    } finally {
      await slow.close();
    }
  });
});

describe('the registry is pruned', () => {
  it('of journals deleted, no longer journals of the target, or holding nothing with no run on them', async () => {
    const input = (name: string, count: number) => {
      const path = join(dir, `${name}.ndjson`);
      writeFileSync(path, ndjson(Array.from({ length: count }, (_, i) => `${name}${i}`)));
      return path;
    };
    const kept = input('kept', 3);
    const deleted = input('deleted', 3);
    const replaced = input('replaced', 3);
    for (const path of [kept, deleted, replaced]) {
      expect((await runBinary(['add', '--file', path, '-q'], env)).code).toBe(0);
    }
    expect(registryEntries().map((e) => e.journal)).toEqual(
      [kept, deleted, replaced].map((path) => `${path}.pets-journal`),
    );
    rmSync(`${deleted}.pets-journal`);
    writeFileSync(`${replaced}.pets-journal`, 'not a journal any more\n');
    // A journal that holds no records and that no run has open: its run sent nothing.
    const empty = join(dir, 'empty.journal');
    writeFileSync(empty, `${readFileSync(`${kept}.pets-journal`, 'utf8').split('\n')[0]}\n`);
    const folder = join(env.PETS_CONFIG_DIR!, 'state', 'journals');
    const file = readdirSync(folder).find((name) => /^[0-9a-f]{16}$/.test(name))!;
    writeFileSync(
      join(folder, file),
      readFileSync(join(folder, file), 'utf8') +
        `${JSON.stringify({ journal: empty, head: [] })}\n`,
    );
    const next = input('next', 2);
    expect((await runBinary(['add', '--file', next, '-q'], env)).code).toBe(0);
    expect(registryEntries().map((e) => e.journal)).toEqual(
      [kept, next].map((path) => `${path}.pets-journal`),
    );
    // What was kept still stands: a copy of the finished input is refused.
    const copy = join(dir, 'copy.ndjson');
    copyFileSync(kept, copy);
    const refused = await runBinary(['add', '--file', copy], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`already in the journal ${kept}.pets-journal`);
    expect(duplicatesOf(server.created)).toEqual([]);
  });
});
