/** Where text goes: stdout or stderr, or a test's capture. */
export interface Output {
  write(text: string): unknown;
}

export interface Io {
  stdout: Output;
  stderr: Output;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** The terminal's width when stdout is one; tables fit it. */
  readonly stdoutColumns?: number;
  /** The terminal's width when stderr is one, now; the progress line fits it. */
  readonly stderrColumns?: number;
  /** Calls `listener` when stderr's terminal is resized; returns what stops it. */
  onStderrResize?(listener: () => void): () => void;
}
