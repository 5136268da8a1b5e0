import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fdOutput, isTerminal } from '../../src/runtime/fd-output.js';
import { tempDir } from '../helpers/config-dir.js';

const opened: number[] = [];
const dir = tempDir('pets-fd-');
afterEach(() => opened.splice(0).forEach((fd) => closeSync(fd)));

function open(path: string, flags: string): number {
  const fd = openSync(path, flags);
  opened.push(fd);
  return fd;
}

describe('fdOutput', () => {
  it('writes every byte of the text, in order, multi-byte characters included', () => {
    const path = join(dir, 'out.txt');
    const out = fdOutput(open(path, 'w'), () => {
      throw new Error('not closed');
    });
    const long = 'x'.repeat(200_000);
    expect(out.write('柴犬 🐶\n')).toBe(true);
    out.write(long);
    expect(readFileSync(path, 'utf8')).toBe(`柴犬 🐶\n${long}`);
  });

  it('tells when the reader of a socket goes with output unread (ECONNRESET, not EPIPE)', async () => {
    // A Node program's pipe to its child is a socket: stopping reading and closing it, as
    // `head` does, fails the next write with ECONNRESET.
    const source = fileURLToPath(new URL('../../src/runtime/fd-output.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { fdOutput } from ${JSON.stringify(source)};
         const out = fdOutput(1, () => { process.stderr.write('reader gone'); process.exit(0); });
         for (;;) out.write('x'.repeat(65536));`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.stdout.pause();
    // Long enough for the child to fill the socket's buffers: output left unread.
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.stdout.destroy();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: 'reader gone' });
  });

  it('throws what it cannot handle, such as a descriptor open only for reading', () => {
    const path = join(dir, 'read-only.txt');
    open(path, 'w');
    const out = fdOutput(open(path, 'r'), () => {});
    expect(() => out.write('text')).toThrow(/EBADF/);
  });
});

describe('isTerminal', () => {
  it('is false for a file and for /dev/null', async () => {
    expect(await isTerminal(open(join(dir, 'file.txt'), 'w'))).toBe(false);
    expect(await isTerminal(open('/dev/null', 'w'))).toBe(false);
  });

  it('is false for a descriptor that is not open', async () => {
    expect(await isTerminal(987)).toBe(false);
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
