import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    // Each file gets its own sandbox and config folder, so files can run in parallel.
    pool: 'forks',
  },
});
