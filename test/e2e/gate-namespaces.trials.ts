import { describe, expect, it } from 'vitest';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { duplicatesOf, startPets } from '../helpers/batch-runs.js';
import { startStrictServer, type StrictServer } from '../helpers/strict-server.js';
import { UNSHARE, unshareRefused } from '../helpers/unshare.js';

// Two batches on one key, one of them in a PID namespace of its own (`unshare -pf
// --mount-proc`, as a container sharing the config folder): the rate gate's claims are named
// by process and namespace, and one process never takes the other's claims for ended because
// kill(pid, 0) fails across namespaces; they lapse only as leases the owner stops renewing.
// The strict server admits one request a second and answers slowly, so a claim voided while
// its request is in flight lets a second into the window: a 429, and any send after it a ban.

const TRIALS = Number(process.env.PETS_GATE_NAMESPACE_TRIALS ?? 3);
const RECORDS = 5;

describe.skipIf(unshareRefused)('two batches on one key, one in another PID namespace', () => {
  it(
    `no claim of the other is voided: 0 × 429, 0 sends into a block, 0 duplicates (${TRIALS} trials)`,
    async () => {
      let limited = 0;
      let blocked = 0;
      let duplicates = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const server: StrictServer = await startStrictServer({
          limit: 1,
          windowMs: 1_000,
          latencyMs: 300,
        });
        try {
          const env = apiEnv(server, { PATH: process.env.PATH ?? '', PETS_PROFILE: 'staging' });
          const inside = recordsFile(env, `inside${trial}`, RECORDS);
          const outside = recordsFile(env, `outside${trial}`, RECORDS);
          const runs = await Promise.all([
            startPets(['add', '--file', inside, '-q'], env, UNSHARE).exited,
            startPets(['add', '--file', outside, '-q'], env).exited,
          ]);
          const context = `trial ${trial}: ${runs.map((run) => run.stderr).join(' / ')}`;
          limited += server.limited();
          blocked += server.sentWhileBlocked();
          duplicates += duplicatesOf(server.created).length;
          expect(server.limited(), context).toBe(0);
          expect(server.sentWhileBlocked(), context).toBe(0);
          expect(duplicatesOf(server.created), context).toEqual([]);
          expect(server.created, context).toHaveLength(2 * RECORDS);
          expect(
            runs.map((run) => run.code),
            context,
          ).toEqual([0, 0]);
        } finally {
          await server.close();
        }
      }
      console.log(
        `one key, one batch in another PID namespace: ${TRIALS} trials, ${limited} 429s, ${blocked} sends into a block, ${duplicates} duplicates`,
      );
    },
    30_000 + TRIALS * 30_000,
  );
});
