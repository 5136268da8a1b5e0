import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { duplicatesOf, startPets, until } from '../helpers/batch-runs.js';
import { removeAfterTest, tempDir } from '../helpers/config-dir.js';
import { runBinary } from '../helpers/run-binary.js';
import { startStrictServer, type StrictServer } from '../helpers/strict-server.js';
import { trials } from '../helpers/trials.js';

// A journal file is only ever a journal, and a dry run writes nothing: the built binary
// against a server that counts what it is sent.

let server: StrictServer;
let dir: string;
let input: string;
let env: Record<string, string>;

beforeEach(async () => {
  server = await startStrictServer({ limit: 1_000_000, windowMs: 60_000 });
  dir = tempDir('pets-journal-identity-');
  input = join(dir, 'records.ndjson');
  const names = Array.from({ length: 5 }, (_, i) => `Id${i}`);
  writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
  env = apiEnv(server, { PETS_PROFILE: 'staging' });
});
afterEach(() => server.close());

/** Every file in the folder with its bytes and modification time: what "untouched" means. */
function snapshot(folder: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(folder).map((name) => {
      const path = join(folder, name);
      return [name, `${statSync(path).mtimeMs} ${readFileSync(path, 'base64')}`];
    }),
  );
}

describe('--journal naming a file that is not a journal', () => {
  it.each([
    ['a CSV file', 'name,categoryId\nRex,3\n'],
    ['one line of JSON', '{"name":"Rex"}\n'],
    ['a header torn in what is not a header', 'notes'],
    [
      'a journal of a format this pets does not read',
      '{"journal":1,"origin":"x","key":"k","profile":"p","baseUrl":"x"}\n',
    ],
  ])('is exit 2 with the file untouched: %s', async (_, text) => {
    const notes = join(dir, 'notes.csv');
    writeFileSync(notes, text);
    const before = snapshot(dir);
    for (const extra of [[], ['--dry-run']]) {
      const run = await runBinary(['add', '--file', input, '--journal', notes, ...extra], env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/is not a pets journal|is in format 1/);
    }
    expect(snapshot(dir)).toEqual(before);
    expect(server.created).toEqual([]);
  });

  it('is exit 2 when it is the input itself, by any name, with the input untouched', async () => {
    symlinkSync(input, join(dir, 'link.ndjson'));
    const before = snapshot(dir);
    for (const journal of [input, join(dir, 'link.ndjson')]) {
      for (const extra of [[], ['--dry-run']]) {
        const run = await runBinary(['add', '--file', input, '--journal', journal, ...extra], env);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain('is the input itself');
      }
    }
    expect(snapshot(dir)).toEqual(before);
    expect(server.created).toEqual([]);
  });

  it('an empty input named as its own journal is refused too, not given a header', async () => {
    writeFileSync(input, '');
    const run = await runBinary(['add', '--file', input, '--journal', input], env);
    expect(run.code).toBe(2);
    expect(readFileSync(input, 'utf8')).toBe('');
  });
});

describe('a dry run', () => {
  it.each([
    ['no journal', undefined],
    ['an empty journal', ''],
    ['a journal whose header a crash tore', '{"journal":2,"ori'],
  ])('writes nothing, no lock either, beside %s', async (_, journalText) => {
    const journal = `${input}.pets-journal`;
    if (journalText !== undefined) writeFileSync(journal, journalText);
    const before = snapshot(dir);
    const run = await runBinary(['add', '--file', input, '--dry-run'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    expect(server.created).toEqual([]);
  });

  it('reads the journal of an earlier run, and changes nothing of it', async () => {
    expect((await runBinary(['add', '--file', input, '-q'], env)).code).toBe(0);
    const before = snapshot(dir);
    const run = await runBinary(['add', '--file', input, '--dry-run', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ records: { created: 5, toSend: 0 } });
    expect(snapshot(dir)).toEqual(before);
    expect(server.created).toHaveLength(5);
  });
});

describe('the same input by another path', () => {
  const TRIALS = Number(process.env.PETS_OTHER_PATH_TRIALS ?? trials(3));

  /** An import of `count` records, slow enough to be stopped partway. */
  async function slowImport(prefix: string, count: number) {
    const slow = await startStrictServer({ limit: 1e6, windowMs: 60_000, latencyMs: 30 });
    const folder = tempDir(prefix);
    const file = join(folder, 'in.ndjson');
    const names = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    writeFileSync(file, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
    const slowEnv = apiEnv(slow, { PATH: process.env.PATH ?? '', PETS_PROFILE: 'staging' });
    return { slow, folder, file, names, slowEnv };
  }

  /** Starts an import of `file` and kills it (-9) once `after` pets are created. */
  async function killedPartway(
    file: string,
    slow: StrictServer,
    slowEnv: NodeJS.ProcessEnv,
    after: number,
  ) {
    const run = startPets(['add', '--file', file, '-q'], slowEnv);
    await until(() => slow.created.length >= after);
    run.child.kill('SIGKILL');
    await run.exited;
  }

  it(
    `kill -9, then resumed through a link to the file or to its folder: nothing twice (${TRIALS} trials each)`,
    async () => {
      let resumes = 0;
      for (let trial = 0; trial < 2 * TRIALS; trial++) {
        const { slow, folder, file, names, slowEnv } = await slowImport(`P${trial}-`, 120);
        try {
          await killedPartway(file, slow, slowEnv, 10 + trial * 7);
          // A link to the file, or to its folder.
          const other =
            trial % 2 === 0 ? join(folder, 'link.ndjson') : join(`${folder}-link`, 'in.ndjson');
          if (trial % 2 === 0) symlinkSync(file, other);
          else {
            symlinkSync(folder, `${folder}-link`);
            removeAfterTest(`${folder}-link`);
          }
          const resumed = await runBinary(['add', '--file', other, '-q'], slowEnv);
          // Exit 1 when the kill caught creates in flight: held as unknown, never resent.
          expect([0, 1], resumed.stderr).toContain(resumed.code);
          expect(resumed.stderr).not.toContain('already in the journal');
          resumes++;
          expect(duplicatesOf(slow.created)).toEqual([]);
          expect(slow.created.length).toBeGreaterThan(names.length - 10);
        } finally {
          await slow.close();
        }
      }
      console.log(`resumed by another path after kill -9: ${resumes} trials, 0 duplicates`);
    },
    60_000 + TRIALS * 20_000,
  );

  it.each([
    ['renamed', 'mv'],
    ['copied', 'cp'],
  ])(
    'a %s input is refused, naming the journal that holds its records and how to resume it',
    async (_, how) => {
      const { slow, folder, file, names, slowEnv } = await slowImport(`R${how}-`, 80);
      try {
        const first = await runBinary(['add', '--file', file, '-q'], slowEnv);
        expect(first.code).toBe(0);
        // Then 20 more records at the end, under a new name.
        const moved = join(folder, 'moved.ndjson');
        const more = Array.from({ length: 20 }, (_, i) => `${how}-more${i}`);
        const text =
          readFileSync(file, 'utf8') +
          '\n' +
          more.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n');
        writeFileSync(moved, text);
        if (how === 'mv') rmSync(file);
        for (const extra of [[], ['--dry-run']]) {
          const refused = await runBinary(['add', '--file', moved, ...extra], slowEnv);
          expect(refused.code, refused.stderr).toBe(2);
          expect(refused.stderr).toContain(
            `80 records of ${moved} are already in the journal ${file}.pets-journal`,
          );
        }
        expect(existsSync(`${moved}.pets-journal`)).toBe(false);
        expect(slow.created).toHaveLength(80);
        // The refusal's resume command, run as printed: only the new records are sent.
        const refused = await runBinary(['add', '--file', moved], slowEnv);
        const resume = /Resume that run with this file: pets (.*)/.exec(refused.stderr)![1]!;
        expect(resume).toBe(`--profile staging add --file ${moved} --journal ${file}.pets-journal`);
        const resumed = await runBinary([...resume.split(' '), '-q'], slowEnv);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(duplicatesOf(slow.created)).toEqual([]);
        expect(slow.created).toHaveLength(names.length + more.length);
        // --new-run sends them again, as asked.
        const again = await runBinary(['add', '--file', moved, '--new-run', '-q'], slowEnv);
        expect(again.code, again.stderr).toBe(0);
        expect(duplicatesOf(slow.created)).toHaveLength(100);
      } finally {
        await slow.close();
      }
    },
  );
});
