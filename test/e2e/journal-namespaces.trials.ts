import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { duplicatesOf, startPets, until } from '../helpers/batch-runs.js';
import {
  skewEndingWindowIn,
  startStrictServer,
  type StrictServer,
} from '../helpers/strict-server.js';
import { UNSHARE, unshareRefused } from '../helpers/unshare.js';

// Two runs of one import on one machine, file and config folder, one of them in a PID
// namespace of its own (`unshare -pf --mount-proc`, as containers and some CI runners do):
// neither takes the other for dead. Counted from the strict server's own records.

const TRIALS = Number(process.env.PETS_NAMESPACE_TRIALS ?? 2);

const start = (args: string[], env: NodeJS.ProcessEnv, inNamespace: boolean) =>
  startPets(args, env, inNamespace ? UNSHARE : []);

async function setUp(prefix: string, records: number, latencyMs = 40) {
  const server = await startStrictServer({ limit: 1e6, windowMs: 60_000, latencyMs });
  const dir = tempDir(prefix);
  const input = join(dir, 'records.ndjson');
  const names = Array.from({ length: records }, (_, i) => `${prefix}${i}`);
  writeFileSync(input, names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
  const env = apiEnv(server, { PATH: process.env.PATH ?? '', PETS_PROFILE: 'staging' });
  return { server, dir, input, names, env };
}

async function closing(server: StrictServer, run: () => Promise<void>) {
  try {
    await run();
  } finally {
    await server.close();
  }
}

describe.skipIf(unshareRefused)('a second run in another PID namespace', () => {
  it(
    `is refused while the first runs, whichever side is in the namespace (${TRIALS} trials each)`,
    async () => {
      let refused = 0;
      for (let trial = 0; trial < 2 * TRIALS; trial++) {
        const firstInside = trial % 2 === 0;
        // Slow answers keep the first run going for several seconds: a second run that is
        // slow to start (unshare, a loaded machine) must still find it running.
        const { server, input, names, env } = await setUp(`N${trial}-`, 300, 150);
        await closing(server, async () => {
          const first = start(['add', '--file', input, '-q'], env, firstInside);
          await until(() => server.created.length >= 5);
          const second = await start(['add', '--file', input, '-q'], env, !firstInside).exited;
          expect(second.code, second.stderr).toBe(2);
          expect(second.stderr).toMatch(
            /in use by another pets \(process \d+ in another PID namespace\)/,
          );
          refused++;
          expect((await first.exited).code).toBe(0);
          expect(duplicatesOf(server.created)).toEqual([]);
          expect(server.created).toHaveLength(names.length);
          expect(server.sentWhileBlocked()).toBe(0);
        });
      }
      console.log(
        `PID namespaces: ${2 * TRIALS} trials (half with the first run inside), ${refused} second runs refused, 0 duplicates`,
      );
    },
    30_000 + TRIALS * 20_000,
  );

  it('after a kill -9 inside the namespace, a resume outside waits out the lease and creates nothing twice', async () => {
    const { server, input, names, env } = await setUp('K-', 200);
    await closing(server, async () => {
      const first = start(['add', '--file', input, '-q'], env, true);
      await until(() => server.created.length >= 10);
      // --kill-child: unshare passes the SIGKILL on to pets, which is pid 1 in there.
      first.child.kill('SIGKILL');
      await first.exited;
      expect(existsSync(`${input}.pets-journal.lock`)).toBe(true);
      const started = Date.now();
      const resumed = await start(['add', '--file', input, '-q'], env, false).exited;
      expect(resumed.code, resumed.stderr).toBe(1);
      // It waited to see the lease unrenewed: nothing told it that pid was gone.
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
      expect(duplicatesOf(server.created)).toEqual([]);
      // Those the kill caught in flight are held as unknown (exit 1), never sent again.
      expect(server.created.length).toBeGreaterThan(names.length - 20);
    });
  }, 60_000);
});

describe.skipIf(unshareRefused)('processes on one key in several PID namespaces', () => {
  const TRIALS = Number(process.env.PETS_NAMESPACE_GATE_TRIALS ?? 2);

  it(
    `8 parallel \`pets list\`, half in namespaces of their own, on a 10-per-10 s window: no 429 (${TRIALS} trials)`,
    async () => {
      let limited = 0;
      let blocked = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const server = await startStrictServer({
          limit: 10,
          windowMs: 10_000,
          skewMs: skewEndingWindowIn(10_000, 2_500),
          latencyMs: 100,
        });
        await closing(server, async () => {
          const env = apiEnv(server, { PATH: process.env.PATH ?? '' });
          for (let i = 0; i < 4; i++) {
            expect((await startPets(['list', '--json'], env).exited).code).toBe(0);
          }
          const runs = await Promise.all(
            Array.from(
              { length: 8 },
              (_, i) => startPets(['list', '--json'], env, i % 2 === 0 ? UNSHARE : []).exited,
            ),
          );
          expect(
            runs.map((run) => run.code),
            runs.map((run) => run.stderr).join('\n'),
          ).toEqual(Array(8).fill(0));
          limited += server.limited();
          blocked += server.sentWhileBlocked();
          expect(server.limited()).toBe(0);
          expect(server.sentWhileBlocked()).toBe(0);
          expect(server.requests).toHaveLength(12);
        });
      }
      console.log(
        `one key across PID namespaces: ${TRIALS} trials of 8 processes, ${limited} 429s, ${blocked} sends into a block`,
      );
    },
    30_000 + TRIALS * 30_000,
  );
});
