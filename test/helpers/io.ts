import { Readable } from 'node:stream';
import type { Io } from '../../src/terminal/io.js';

export interface CapturedIo extends Io {
  out(): string;
  err(): string;
}

export interface IoOptions {
  stdin?: string;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  stdoutColumns?: number;
  stderrColumns?: number;
}

/** An Io that records what a command writes; not a terminal unless told. */
export function captureIo(options: IoOptions = {}): CapturedIo {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    stdinIsTTY: options.stdinIsTTY ?? false,
    stdoutColumns: options.stdoutColumns,
    stderrColumns: options.stderrColumns,
    out: () => stdout,
    err: () => stderr,
  };
}
