import { PassThrough } from 'node:stream';
import type { ReadStream } from 'node:tty';
import { describe, expect, it } from 'vitest';
import { HiddenLine, readHiddenLine } from '../../src/terminal/hidden-line.js';
import { LineLimit } from '../../src/terminal/line-limit.js';
import { MAX_ANSWER_LENGTH, terminalPrompter } from '../../src/terminal/prompt.js';
import { InterruptedError, UsageError } from '../../src/core/errors.js';
import { captureIo } from '../helpers/io.js';

/** A terminal's stdin: what is written to it arrives as typed keys; raw mode is recorded. */
function fakeTerminal() {
  const stdin = new PassThrough() as PassThrough & { isTTY: boolean; isRaw: boolean };
  stdin.isTTY = true;
  stdin.isRaw = false;
  Object.assign(stdin, {
    setRawMode(mode: boolean) {
      stdin.isRaw = mode;
      return stdin;
    },
  });
  return stdin;
}

/** The hidden prompt; `type` sends `chunks` as they would arrive from the terminal. */
function hidden(signal = new AbortController().signal) {
  const stdin = fakeTerminal();
  const typed = readHiddenLine(
    { message: 'API key (input hidden): ', subject: 'the key' },
    { stdin: stdin as unknown as ReadStream, stderr: { write: () => true } },
    signal,
    () => new InterruptedError(false, 'interrupted at a question'),
  );
  const type = (...chunks: string[]) => chunks.forEach((chunk) => stdin.write(chunk));
  return { typed, stdin, type };
}

const lineOf = (keys: string) => {
  const line = new HiddenLine();
  for (const ch of keys) if (line.type(ch) === 'interrupt') break;
  return line;
};

describe('the hidden line', () => {
  it('keeps typed text; Backspace erases a character, Ctrl-U the line, Ctrl-W a word', () => {
    expect(lineOf('abcx\u007fdef').text).toBe('abcdef');
    expect(lineOf('PRODUCTION-SECRET-KEY-999\u0015staging-key-123').text).toBe('staging-key-123');
    expect(lineOf('first second  \u0017third').text).toBe('first third');
    expect(lineOf('\u0017\u007f\u0015ok').text).toBe('ok');
  });

  it.each([
    ['an arrow key', 'abc\u001b[Ddef'],
    ['Delete', 'abc\u001b[3~'],
    ['an SS3 arrow', 'abc\u001bOAdef'],
    ['Ctrl-A', 'abc\u0001def'],
    ['Ctrl-K', 'abc\u000b'],
    ['Tab', 'abc\tdef'],
    ['a C1 control', 'abc\u009bD'],
  ])('is refused after %s', (_what, keys) => {
    expect(lineOf(keys).refusal).toBe('editing key');
  });

  it('ends at Enter, Ctrl-D or Ctrl-C, and says which', () => {
    expect(new HiddenLine().type('\r')).toBe('enter');
    expect(new HiddenLine().type('\u0004')).toBe('enter');
    expect(new HiddenLine().type('\u0003')).toBe('interrupt');
  });

  it('is refused when text follows a line end in the same read or paste', () => {
    expect(lineOf('key\rnotes').refusal).toBe('several lines');
    expect(lineOf('key\nnotes').refusal).toBe('several lines');
    expect(lineOf('\u001b[200~key\rnotes\u001b[201~').refusal).toBe('several lines');
    // Line ends alone after it are the same Enter.
    expect(lineOf('key\r\n').refusal).toBeUndefined();
  });

  it('takes a marked paste as text, ending the line where the paste ends after a line end', () => {
    const pasted = new HiddenLine();
    const ends = [...'\u001b[200~key\r\u001b[201~'].map((ch) => pasted.type(ch));
    expect(ends.indexOf('enter')).toBe(ends.length - 1);
    expect({ text: pasted.text, refusal: pasted.refusal }).toEqual({ text: 'key' });
    const typedAfter = lineOf('\u001b[200~key\u001b[201~\r');
    expect({ text: typedAfter.text, refusal: typedAfter.refusal }).toEqual({ text: 'key' });
  });

  it('is refused past its limit, keeping no more than the limit', () => {
    const line = new HiddenLine(4);
    for (const ch of 'abcdefgh') line.type(ch);
    expect(line.refusal).toBe('too long');
    expect(line.text).toBe('abcd');
  });
});

describe('readHiddenLine', () => {
  it('returns the line at Enter, with raw mode on while it reads and off after', async () => {
    const { typed, stdin, type } = hidden();
    expect(stdin.isRaw).toBe(true);
    type('PRODUCTION-SECRET-KEY-999', '\u0015', 'staging-key-123\r');
    await expect(typed).resolves.toBe('staging-key-123');
    expect(stdin.isRaw).toBe(false);
  });

  it.each([
    ['an arrow key', ['abc\u001b[Ddef\r']],
    ['an arrow key split across reads', ['abc\u001b', '[D', 'def\r']],
    ['Ctrl-A', ['abc\u0001def\r']],
  ])('refuses the line after %s, at its Enter', async (_what, chunks) => {
    const { typed, stdin, type } = hidden();
    type(...chunks);
    await expect(typed).rejects.toThrow(UsageError);
    await expect(typed).rejects.toThrow(/the key was typed with arrow keys or other editing keys/);
    expect(stdin.isRaw).toBe(false);
  });

  it('refuses a paste of several lines read at once, and takes a key with its line ends', async () => {
    const several = hidden();
    several.type('staging-key-123\rnotes\r');
    await expect(several.typed).rejects.toThrow(/the key was pasted with a line break inside it/);
    const one = hidden();
    one.type('staging-key-123\r\n');
    await expect(one.typed).resolves.toBe('staging-key-123');
  });

  it('ends at once on Ctrl-C', async () => {
    const { typed, type } = hidden();
    type('ab\u0003cd\r');
    await expect(typed).rejects.toThrow(InterruptedError);
  });

  it("ends on the run's interrupt (a signal from outside), raw mode off", async () => {
    const stop = new AbortController();
    const { typed, stdin, type } = hidden(stop.signal);
    type('abc');
    stop.abort();
    await expect(typed).rejects.toThrow(InterruptedError);
    expect(stdin.isRaw).toBe(false);
  });
});

describe('escape sequences in the hidden line', () => {
  it('takes every character of a sequence, and nothing after it, as no text', () => {
    expect(lineOf('a\u001b[1;5Cb\u001bOPc\u001bxd\u001b\u001be').text).toBe('abcde');
  });
});

describe('LineLimit', () => {
  it('passes a line up to its limit and drops the rest of it, up to Enter', () => {
    const limit = new LineLimit(3);
    expect(limit.pass('abcdef')).toBe('abc');
    expect(limit.pass('gh\rxy')).toBe('\rxy');
  });

  it('lets Ctrl-C through a dropped line, and takes erased characters back', () => {
    const limit = new LineLimit(3);
    expect(limit.pass('abcdef\u0003')).toBe('abc\u0003');
    expect(limit.pass('\u0015ab\u007fcd')).toBe('\u0015ab\u007fcd');
  });
});

describe('terminalPrompter', () => {
  const asking = () => {
    const stdin = fakeTerminal();
    const io = { ...captureIo({ stdinIsTTY: true, stderrIsTTY: true }), stdin };
    const stop = new AbortController();
    return { stdin, io, stop, prompter: terminalPrompter(io, stop.signal) };
  };
  const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('answers a text question typed at the terminal', async () => {
    const { stdin, prompter } = asking();
    const answer = prompter.text({ message: 'Name', plain: true });
    await after(50);
    stdin.write('Rex\r');
    await expect(answer).resolves.toBe('Rex');
  });

  it('refuses a pasted answer longer than the limit, at once, and takes the next', async () => {
    const { stdin, io, prompter } = asking();
    const answer = prompter.text({ message: 'Name', check: () => undefined, plain: true });
    await after(50);
    stdin.write(`${'x'.repeat(200_000)}\r`);
    await after(50);
    expect(io.err()).toContain(`At most ${MAX_ANSWER_LENGTH} characters can be typed here`);
    stdin.write('\u0015Rex\r');
    await expect(answer).resolves.toBe('Rex');
  });

  it("ends a question on the run's interrupt", async () => {
    const { prompter, stop } = asking();
    const answer = prompter.select({
      message: 'Status',
      choices: [{ value: 'sold', name: 'sold' }],
      plain: true,
    });
    await after(50);
    stop.abort();
    await expect(answer).rejects.toThrow(InterruptedError);
  });
});
