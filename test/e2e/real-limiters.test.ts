import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiEnv, recordsFile } from '../helpers/api-env.js';
import { runBinary } from '../helpers/run-binary.js';
import { LIMITERS, measure, startPrism, type LimiterServer } from '../helpers/real-limiters.js';

// pets against rate limiters it did not write (express-rate-limit in each header mode,
// @fastify/rate-limit, koa-ratelimit, hono-rate-limiter, rate-limiter-flexible) and a Prism
// mock of the contract: one quick case each, on short windows. The full 60-record imports at
// realistic windows are in real-limiters.trials.ts. The quick import of 6 takes two windows of 4.
const SETTINGS = { limit: 4, windowMs: 1_000 };

/** Five single commands, one after another: list, add, get, list with a filter, get. */
async function fiveCommands(server: LimiterServer) {
  const env = apiEnv(server, { PETS_PROFILE: 'staging' });
  const runs = [];
  for (const args of [
    ['list'],
    ['add', '--name', 'Rex', '--category-id', '1'],
    ['get', '1'],
    ['list', '--status', 'available'],
    ['get', '1'],
  ]) {
    runs.push(await runBinary([...args, '--max-wait', '10'], env));
  }
  return runs;
}

describe.concurrent.each(Object.keys(LIMITERS))('%s', (name) => {
  it('five single commands exit 0; an import of 6 gets no 429 and creates each once', async () => {
    const server = await LIMITERS[name]!(SETTINGS);
    try {
      const singles = await fiveCommands(server);
      expect(
        singles.map((run) => run.code),
        singles.map((run) => run.stderr).join(''),
      ).toEqual([0, 0, 0, 0, 0]);
      const env = apiEnv(server, { PETS_PROFILE: 'staging' });
      server.log.length = 0;
      const run = await runBinary(['add', '--file', recordsFile(env, 'import', 6), '-q'], env);
      const measured = measure(server, SETTINGS);
      console.log(`${name}: ${JSON.stringify(measured)}`);
      expect(run.code, run.stderr).toBe(0);
      expect(measured.limited).toBe(0);
      expect(measured.forbidden).toBe(0);
      const names = Array.from({ length: 6 }, (_, i) => `import ${i}`);
      expect(names.map((n) => server.created.get(n))).toEqual(names.map(() => 1));
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('a Prism mock of the contract (Limit 0, Remaining 0, Reset 0 on every answer)', () => {
  let prism: LimiterServer;
  beforeAll(async () => {
    prism = await startPrism();
  }, 90_000);
  afterAll(() => prism?.close());

  it('five single commands exit 0, and an import of 10 goes at once', async () => {
    const singles = await fiveCommands(prism);
    expect(
      singles.map((run) => run.code),
      singles.map((run) => run.stderr).join(''),
    ).toEqual([0, 0, 0, 0, 0]);
    const env = apiEnv(prism, { PETS_PROFILE: 'staging' });
    const run = await runBinary(
      ['add', '--file', recordsFile(env, 'import', 10), '--max-wait', '0'],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
  }, 60_000);
});
