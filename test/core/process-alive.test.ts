import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pidSpace, processAlive, processName, seeProcess } from '../../src/core/process-alive.js';

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

describe('seeProcess', () => {
  it('sees a process of this PID namespace alive or gone', () => {
    if (pidSpace() === undefined) return; // no /proc: nothing is comparable
    expect(seeProcess(processName())).toBe('alive');
    const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(seeProcess(`${ended}.${pidSpace()}`)).toBe('gone');
  });

  it.each([
    ['another PID namespace', `${process.pid}.4026531836-0123456789abcdef0123456789abcdef`],
    ['an unknown namespace', `${process.pid}.unknown`],
  ])('cannot see a process of %s, even with a pid that runs here', (_, name) => {
    expect(seeProcess(name)).toBe('unseen');
  });
});
