import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../../src/core/process-alive.js';

describe('processAlive', () => {
  it('knows this process and its parent', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.ppid)).toBe(true);
  });

  it('knows a process that has ended is gone', () => {
    const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(processAlive(ended)).toBe(false);
  });

  it.each([0, -1, Number.NaN, 1.5, 2 ** 60])('takes %d for no process', (pid) => {
    expect(processAlive(pid)).toBe(false);
  });
});
