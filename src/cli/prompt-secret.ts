import type { ReadStream } from 'node:tty';
import { InterruptedError } from '../errors.js';
import type { Output } from './deps.js';

/**
 * Asks for a secret on the terminal without echoing it. Raw mode is needed so that not even
 * the characters typed appear; it is always restored.
 */
export function promptSecret(question: string, stdin: ReadStream, stderr: Output): Promise<string> {
  return new Promise((resolve, reject) => {
    let secret = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(secret);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new InterruptedError());
        if (ch === '\u007f' || ch === '\b') secret = secret.slice(0, -1);
        else if (ch >= ' ') secret += ch;
      }
    };
    // Raw mode (no echo) before the question: whatever is typed the moment it appears must
    // not be shown.
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
    stderr.write(question);
  });
}

/** Asks for one line of visible input on the terminal (a confirmation). */
export async function promptLine(
  question: string,
  stdin: NodeJS.ReadableStream,
  stderr: Output,
): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const lines = createInterface({
    input: stdin,
    output: stderr as NodeJS.WritableStream,
    terminal: false,
  });
  stderr.write(question);
  try {
    for await (const line of lines) return line;
    return '';
  } finally {
    lines.close();
  }
}
