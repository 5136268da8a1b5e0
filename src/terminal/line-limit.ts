import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { ReadStream } from 'node:tty';

/**
 * Passes typed text on while the line is within `limit` characters, and drops the rest of a
 * longer line up to its Enter, so that a paste is read at once and what follows it, Ctrl-C
 * included, is not queued behind it. The count since the last Enter only grows with typed
 * characters (Backspace and Ctrl-U take it back), so the line never holds more than `limit`.
 */
export class LineLimit {
  private length = 0;

  constructor(private readonly limit: number) {}

  pass(text: string): string {
    let kept = '';
    for (const ch of text) {
      if (ch === '\r' || ch === '\n' || ch === '\u0015') this.length = 0;
      else if (ch === '\u007f' || ch === '\b') this.length = Math.max(0, this.length - 1);
      else if (ch !== '\u0003' && this.length++ >= this.limit) continue;
      kept += ch;
    }
    return kept;
  }
}

/**
 * `stdin` as the prompt library reads it, through a LineLimit: the library sets raw mode
 * through it as on the terminal itself. `detach` ends it and leaves stdin paused.
 */
export function limitedInput(
  stdin: ReadStream,
  limit: number,
): { input: NodeJS.ReadableStream; detach(): void } {
  const lines = new LineLimit(limit);
  const decoder = new StringDecoder('utf8');
  const input: PassThrough & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown } =
    new PassThrough();
  input.isTTY = true;
  input.setRawMode = (mode) => stdin.setRawMode(mode);
  const onData = (chunk: Buffer | string) => {
    const text = lines.pass(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (text !== '') input.write(text);
  };
  stdin.on('data', onData);
  stdin.resume();
  return {
    input,
    detach() {
      stdin.off('data', onData);
      stdin.pause();
      input.end();
    },
  };
}
