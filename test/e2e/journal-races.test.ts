import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidSpace } from '../../src/core/process-alive.js';
import { seededRandom } from '../ratelimit/simulation.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { duplicatesOf, startPets, until } from '../helpers/batch-runs.js';
import { runBinary } from '../helpers/run-binary.js';
import { startStrictServer } from '../helpers/strict-server.js';
import { trials } from '../helpers/trials.js';

// Two runs that race for one journal, and a run killed while the rate gate holds its records.
// Spawned binaries, counted from the server's own records. The full counts (100 races, 40
// kills) take minutes: CI runs a few of each, PETS_JOURNAL_RACES=100 PETS_GATE_KILLS=40 all.

const RACES = Number(process.env.PETS_JOURNAL_RACES ?? trials(4, 2));
const KILLS = Number(process.env.PETS_GATE_KILLS ?? trials(6, 2));

const start = (args: string[], env: NodeJS.ProcessEnv) => startPets(args, env);

async function setUp(prefix: string, records: number, latencyMs: () => number, limit = 1e6) {
  const server = await startStrictServer({ limit, windowMs: 60_000, latencyMs });
  const dir = tempDir(prefix);
  const input = join(dir, 'records.ndjson');
  const names = Array.from({ length: records }, (_, i) => `${prefix}${i}`);
  writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
  const env = apiEnv(server, { PATH: process.env.PATH ?? '', PETS_PROFILE: 'staging' });
  return { server, dir, input, names, env };
}

/** Two runs started at once on one journal: exactly one runs, the other is refused. */
async function race(input: string, env: NodeJS.ProcessEnv) {
  const runs = [
    start(['add', '--file', input, '-q'], env),
    start(['add', '--file', input, '-q'], env),
  ];
  const ends = await Promise.all(runs.map((run) => run.exited));
  const refused = ends.filter(
    (end) => end.code === 2 && /in use by another pets \(process \d+\)/.test(end.stderr),
  );
  const ran = ends.filter((end) => end.code !== 2);
  return { ends, refused: refused.length, ran: ran.length };
}

describe('two runs racing for one journal', () => {
  it(
    `over a stale lock: exactly one runs (${RACES} trials)`,
    async () => {
      let refused = 0;
      for (let trial = 0; trial < RACES; trial++) {
        const random = seededRandom(trial + 1);
        const { server, input, names, env } = await setUp(
          `S${trial}-`,
          60,
          () => 20 + random() * 40,
        );
        try {
          // A run of this PID namespace that died holding the lock, as pets leaves it.
          const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
          mkdirSync(join(`${input}.pets-journal.lock`, `${dead}.${pidSpace()}.gone`), {
            recursive: true,
          });
          const result = await race(input, env);
          expect(result.ran, JSON.stringify(result.ends)).toBe(1);
          expect(result.refused).toBe(1);
          refused += result.refused;
          expect(duplicatesOf(server.created)).toEqual([]);
          expect(server.created).toHaveLength(names.length);
        } finally {
          await server.close();
        }
      }
      console.log(
        `stale-lock races: ${RACES} trials, exactly one ran in each, ${refused} refused, 0 duplicates`,
      );
    },
    20_000 + RACES * 8_000,
  );

  it(
    `after a kill -9: exactly one resume runs, and nothing is created twice (${RACES} trials)`,
    async () => {
      for (let trial = 0; trial < RACES; trial++) {
        const random = seededRandom(1_000 + trial);
        const { server, input, env } = await setUp(`K${trial}-`, 60, () => 20 + random() * 40);
        try {
          const first = start(['add', '--file', input, '-q'], env);
          await until(() => server.created.length >= 1 + Math.floor(random() * 20));
          first.child.kill('SIGKILL');
          await first.exited;
          const result = await race(input, env);
          expect(result.ran, JSON.stringify(result.ends)).toBe(1);
          expect(duplicatesOf(server.created)).toEqual([]);
        } finally {
          await server.close();
        }
      }
      console.log(
        `races after kill -9: ${RACES} trials, exactly one resume ran in each, 0 duplicates`,
      );
    },
    20_000 + RACES * 10_000,
  );

  it('a symbolic or a hard link to a running journal is refused', async () => {
    const { server, dir, input, env } = await setUp('L-', 60, () => 30);
    try {
      const journal = join(dir, 'j');
      const running = start(['add', '--file', input, '--journal', journal, '-q'], env);
      await until(() => server.created.length >= 2);
      const { symlinkSync, linkSync } = await import('node:fs');
      symlinkSync(journal, join(dir, 'soft'));
      const soft = await runBinary(['add', '--file', input, '--journal', join(dir, 'soft')], env);
      expect(soft.code).toBe(2);
      expect(soft.stderr).toContain(`in use by another pets (process ${running.child.pid})`);
      linkSync(journal, join(dir, 'hard'));
      const hard = await runBinary(['add', '--file', input, '--journal', join(dir, 'hard')], env);
      expect(hard.code).toBe(2);
      expect(hard.stderr).toMatch(/has 2 names \(hard links\)/);
      expect((await running.exited).code).toBe(0);
      expect(duplicatesOf(server.created)).toEqual([]);
      expect(server.created).toHaveLength(60);
    } finally {
      await server.close();
    }
  });
});

/** The records the journal holds as unknown: an intent and no outcome. */
function unknownIn(journal: string): string[] {
  const intents = new Map<string, number>();
  const settled = new Set<string>();
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    try {
      const entry = JSON.parse(text) as { i?: string; o?: string; line?: number };
      if (entry.i) intents.set(entry.i, entry.line ?? 0);
      if (entry.o) settled.add(entry.o);
    } catch {
      // a torn line: this test kills during waits, where no write is under way
    }
  }
  return [...intents].filter(([name]) => !settled.has(name)).map(([, line]) => String(line));
}

describe('a batch killed while the rate gate holds its records', () => {
  it(
    `holds as unknown only records that left (${KILLS} trials)`,
    async () => {
      let unknownTotal = 0;
      let waitingTotal = 0;
      for (let trial = 0; trial < KILLS; trial++) {
        const random = seededRandom(5_000 + trial);
        const limit = 4 + Math.floor(random() * 6);
        const { server, input, names, env } = await setUp(
          `G${trial}-`,
          40,
          () => random() * 30,
          limit,
        );
        try {
          const run = start(['add', '--file', input, '-q', '--max-wait', '600'], env);
          // Killed while its requests wait for the next window (and now and then with the last
          // of the window's requests still on the wire).
          await until(() => server.created.length >= limit);
          await new Promise((r) => setTimeout(r, Math.floor(random() * 120)));
          run.child.kill('SIGKILL');
          await run.exited;
          const unknown = unknownIn(`${input}.pets-journal`);
          const createdLines = new Set(
            server.created.map((name) => String(names.indexOf(name) + 1)),
          );
          unknownTotal += unknown.length;
          waitingTotal += names.length - server.created.length;
          // Every record held as unknown is one the server received: it was in flight.
          expect(
            unknown.filter((line) => !createdLines.has(line)),
            `trial ${trial}`,
          ).toEqual([]);
          expect(unknown.length).toBeLessThanOrEqual(limit);
          expect(server.limited()).toBe(0);
        } finally {
          await server.close();
        }
      }
      console.log(
        `kill -9 during gate waits: ${KILLS} trials, ${unknownTotal} unknown, ` +
          `${waitingTotal} records waiting or unread at the kill, none of them unknown`,
      );
    },
    20_000 + KILLS * 6_000,
  );
});
