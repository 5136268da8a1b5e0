import { EventEmitter } from 'node:events';
import type { ReadStream } from 'node:tty';
import { describe, expect, it } from 'vitest';
import { EscapeSequences, promptSecret } from '../../src/terminal/prompt.js';
import { InterruptedError, UsageError } from '../../src/core/errors.js';

/** A terminal's stdin that delivers `chunks` once the prompt listens. */
function fakeTerminal(chunks: string[]): ReadStream {
  const stdin = new EventEmitter() as EventEmitter & Record<string, unknown>;
  stdin.setRawMode = () => stdin;
  stdin.pause = () => stdin;
  stdin.resume = () => {
    setImmediate(() => chunks.forEach((chunk) => stdin.emit('data', Buffer.from(chunk))));
    return stdin;
  };
  return stdin as unknown as ReadStream;
}

const ask = (chunks: string[]) =>
  promptSecret('API key (input hidden): ', fakeTerminal(chunks), { write: () => true });

describe('the hidden key prompt', () => {
  it('keeps typed text and Backspace, ending at Enter', async () => {
    await expect(ask(['abcx\u007fdef\r'])).resolves.toBe('abcdef');
  });

  it.each([
    ['an arrow key', ['abc\u001b[Ddef\r']],
    ['an arrow key split across reads', ['abc\u001b', '[D', 'def\r']],
    ['Delete', ['abc\u001b[3~\r']],
    ['an SS3 arrow', ['abc\u001bOAdef\r']],
  ])('refuses the key after %s, storing nothing', async (_what, chunks) => {
    const typed = ask(chunks);
    await expect(typed).rejects.toThrow(UsageError);
    await expect(typed).rejects.toThrow(/arrow keys or other editing keys/);
  });

  it('ends at once on Ctrl-C', async () => {
    await expect(ask(['ab\u0003cd\r'])).rejects.toThrow(InterruptedError);
  });
});

describe('EscapeSequences', () => {
  it('marks every character of a sequence, and nothing after it', () => {
    const escapes = new EscapeSequences();
    const kept = [...'a\u001b[1;5Cb\u001bOPc\u001bxd'].filter((ch) => !escapes.consume(ch));
    expect(kept.join('')).toBe('abcd');
    expect(escapes.seen).toBe(true);
  });
});
