import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { nginxMissing, startNginx } from '../helpers/nginx.js';
import { runBinary } from '../helpers/run-binary.js';
import { freePort, plainContract } from '../helpers/real-limiters.js';

// nginx limit_req (Debian's package; .ci/run installs it) at 2 requests a second, burst=0,
// limit_req_status 429 and no rate headers: pets learns the rate from the 429s
// (src/ratelimit/pacing.ts): an import of 6 meets the 429 it learns from, and is paced after
// it (about 0.6 s a record). The 60-record import is in nginx-limit-req.trials.ts.
if (nginxMissing) console.warn(`skipping the nginx limit_req tests: ${nginxMissing}`);

describe.skipIf(nginxMissing !== undefined)('nginx limit_req, 2 r/s, no rate headers', () => {
  it('five single commands exit 0; an import of 6 creates each once, at most 3 × 429', async () => {
    const folder = tempDir('pets-nginx-');
    const nginx = await startNginx(folder, 2, await plainContract(), await freePort());
    try {
      const env = apiEnv(nginx, { PETS_PROFILE: 'staging' });
      const codes = [];
      for (const args of [
        ['list'],
        ['add', '--name', 'Rex', '--category-id', '1'],
        ['get', '1'],
        ['list'],
        ['get', '1'],
      ]) {
        const run = await runBinary([...args, '--max-wait', '10'], env);
        codes.push(run.code);
      }
      expect(codes).toEqual([0, 0, 0, 0, 0]);
      const before = nginx.log().length;
      const run = await runBinary(['add', '--file', recordsFile(env, 'import', 6), '-q'], env);
      expect(run.code, run.stderr).toBe(0);
      const log = nginx.log().slice(before);
      expect(
        log.filter((entry) => entry.status === 429).length,
        JSON.stringify(log),
      ).toBeLessThanOrEqual(3);
      expect(log.filter((entry) => entry.status === 403)).toEqual([]);
      const names = Array.from({ length: 6 }, (_, i) => `import ${i}`);
      expect(names.map((n) => nginx.created.get(n))).toEqual(names.map(() => 1));
    } finally {
      await nginx.close();
    }
    // nginx stopped: its process is gone and its pid file removed; tempDir removes the folder.
    expect(existsSync(`${folder}/nginx.pid`)).toBe(false);
    expect(() => process.kill(nginx.pid!, 0)).toThrow();
  }, 90_000);
});
