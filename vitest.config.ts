import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    // Each file gets its own sandbox and config folder, so files can run in parallel.
    pool: 'forks',
    // Most of a file's time is spent waiting on what it spawned (pets, servers, windows of a
    // rate limit), not computing: vitest's default on two cores, one file at a time, left the
    // CPU idle half the run. Three files at once (measured in #40's note against one and two).
    maxWorkers: 3,
    projects: [
      // `npm test`: at least one fast test for every promise.
      { extends: true, test: { name: 'tests', include: ['test/**/*.test.ts'] } },
      // `npm run test:trials`: the same promises tried many times (seeds, kill loops, fleets,
      // terminal matrices); .ci/run runs them in full.
      {
        extends: true,
        test: { name: 'trials', include: ['test/**/*.trials.ts'], env: { PETS_TRIALS: '1' } },
      },
    ],
  },
});
