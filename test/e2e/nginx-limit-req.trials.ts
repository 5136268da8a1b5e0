import { describe, expect, it } from 'vitest';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { nginxMissing, startNginx } from '../helpers/nginx.js';
import { runBinary } from '../helpers/run-binary.js';
import { freePort, plainContract } from '../helpers/real-limiters.js';

// nginx limit_req at 2 r/s, burst=0, no rate headers: the imports (#39). The figures
// come from nginx's own access log: its 429s, and the time from its first accepted request to
// its last against the least the rate allows ((accepted - 1) / rate).
const RATE = 2;
if (nginxMissing) console.warn(`skipping the nginx limit_req trials: ${nginxMissing}`);

function figures(log: Array<{ at: number; status: number }>) {
  const accepted = log.filter((entry) => entry.status !== 429);
  const spanMs = accepted.at(-1)!.at - accepted[0]!.at;
  const leastMs = ((accepted.length - 1) * 1000) / RATE;
  return {
    limited: log.filter((entry) => entry.status === 429).length,
    forbidden: log.filter((entry) => entry.status === 403).length,
    ratio: spanMs / leastMs,
  };
}

/** nginx at RATE in front of the contract's operations, on a free port of its own. */
async function startLimitedNginx() {
  return startNginx(tempDir('pets-nginx-'), RATE, await plainContract(), await freePort());
}

// One retry: a pace of 500 ms measured against the wall clock meets the machine's load. Quiet,
// both cases pass at once (2 × 429 at 1.18×; 3 × 429 at 1.24×, 4 runs); with the load of six
// other test runs beside them, this code and the code before it both read 1.28–1.53×.
describe.skipIf(nginxMissing !== undefined)(
  'nginx limit_req, 2 r/s, no rate headers',
  { retry: 1 },
  () => {
    it('a 60-record import: at most 3 × 429, every record once, within 1.2× the least time', async () => {
      const nginx = await startLimitedNginx();
      try {
        const env = apiEnv(nginx, { PETS_PROFILE: 'staging' });
        const run = await runBinary(['add', '--file', recordsFile(env, 'import', 60), '-q'], env);
        const measured = figures(nginx.log());
        console.log(`nginx 2 r/s, 60 records: ${JSON.stringify(measured)}`);
        expect(run.code, run.stderr).toBe(0);
        expect(measured.limited).toBeLessThanOrEqual(3);
        expect(measured.forbidden).toBe(0);
        expect(measured.ratio).toBeLessThanOrEqual(1.2);
        const names = Array.from({ length: 60 }, (_, i) => `import ${i}`);
        expect(names.map((n) => nginx.created.get(n))).toEqual(names.map(() => 1));
      } finally {
        await nginx.close();
      }
    }, 120_000);

    it('two imports of 40 at once share the pace: no more 429s than one import', async () => {
      const nginx = await startLimitedNginx();
      try {
        const env = apiEnv(nginx, { PETS_PROFILE: 'staging' });
        const runs = await Promise.all(
          ['a', 'b'].map((name) =>
            runBinary(
              [
                'add',
                '--file',
                recordsFile(env, name, 40),
                '-q',
                '--journal',
                `${env.PETS_CONFIG_DIR}/${name}.journal`,
              ],
              env,
            ),
          ),
        );
        const measured = figures(nginx.log());
        console.log(`nginx 2 r/s, 40 + 40 records: ${JSON.stringify(measured)}`);
        expect(
          runs.map((run) => run.code),
          runs.map((run) => run.stderr).join(''),
        ).toEqual([0, 0]);
        expect(measured.limited).toBeLessThanOrEqual(3);
        expect(measured.forbidden).toBe(0);
      } finally {
        await nginx.close();
      }
    }, 180_000);
  },
);
