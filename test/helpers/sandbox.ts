import { onTestFinished } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/**
 * A sandbox of the current test's own, closed when the test ends: no test sees the pets, the
 * requests or the quota of another, so the tests of a file pass in any order. Call it in a
 * test or in a beforeEach (a few ms each).
 */
export async function testSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await startSandbox(options);
  onTestFinished(() => sandbox.close());
  return sandbox;
}
