import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    // Each file gets its own sandbox and config folder, so files can run in parallel.
    pool: 'forks',
    // maxWorkers stays vitest's default, one file at a time on two cores: three at once left
    // tests that spawn pets many times over (echo-leaks, proxy, json-output) past their 20 s
    // on this shared machine (#40's note), though most of a file's time is waiting.
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
