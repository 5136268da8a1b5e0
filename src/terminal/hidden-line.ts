import { StringDecoder } from 'node:string_decoder';
import type { ReadStream } from 'node:tty';
import { UsageError } from '../core/errors.js';
import type { Output } from './io.js';

/**
 * The most a hidden line holds: past it the rest of the line is dropped and the line refused,
 * so that a runaway paste neither fills memory nor ends up stored.
 */
export const MAX_HIDDEN_LINE = 64 * 1024;

/** How a terminal marks a paste, once asked to (bracketed paste mode, xterm's 2004). */
const PASTE_MODE_ON = '\u001b[?2004h';
const PASTE_MODE_OFF = '\u001b[?2004l';
const PASTE_START = '\u001b[200~';
const PASTE_END = '\u001b[201~';

/** A whole ESC sequence: CSI `ESC [ … final`, SS3 `ESC O x`, or `ESC x`. */
const WHOLE_SEQUENCE = /^\u001b(?:\[[^@-~]*[@-~]|O.|[^[O])$/su;

/** Why a hidden line cannot be taken. */
export type Refusal = 'editing key' | 'too long' | 'several lines';

/**
 * A line typed without echo, edited as a terminal edits a line: Backspace erases a character,
 * Ctrl-U the line, Ctrl-W a word. Any other control key or escape sequence (arrows, Home,
 * Delete, Ctrl-A, Tab) would move or change text the person cannot see, so what they meant
 * cannot be known: the line is refused when it ends.
 *
 * A paste with a line break inside it ("key\nnotes") would send its first line as the key
 * while the rest waited as the next answer: text after a line end, in the same paste (as the
 * terminal marks it) or the same read, refuses the line.
 */
export class HiddenLine {
  /** Why the line cannot be taken, once it cannot. */
  refusal?: Refusal;
  private chars: string[] = [];
  private sequence = '';
  private pasting = false;
  private lineEnded = false;

  constructor(private readonly limit = MAX_HIDDEN_LINE) {}

  get text(): string {
    return this.chars.join('');
  }

  /**
   * Takes one typed character: Enter (or Ctrl-D) ends the line, Ctrl-C interrupts it; in a
   * paste, the line ends with the paste. After the end, only more line ends may follow.
   */
  type(ch: string): 'enter' | 'interrupt' | undefined {
    if (this.sequence !== '' || ch === '\u001b') return this.escape(ch);
    switch (ch) {
      case '\r':
      case '\n':
      case '\u0004': {
        const first = !this.pasting && !this.lineEnded;
        this.lineEnded = true;
        return first ? 'enter' : undefined;
      }
      case '\u0003':
        return 'interrupt';
    }
    if (this.lineEnded) {
      this.refusal ??= 'several lines';
      return undefined;
    }
    switch (ch) {
      case '\u007f':
      case '\b':
        this.chars.pop();
        return undefined;
      case '\u0015':
        this.chars = [];
        return undefined;
      case '\u0017':
        // As a terminal's word erase: the blanks before the cursor, then the word before them.
        while (this.chars.length > 0 && /\s/.test(this.chars.at(-1)!)) this.chars.pop();
        while (this.chars.length > 0 && !/\s/.test(this.chars.at(-1)!)) this.chars.pop();
        return undefined;
    }
    if (/[\u0000-\u001f\u0080-\u009f]/.test(ch)) this.refusal ??= 'editing key';
    else if (this.chars.length >= this.limit) this.refusal ??= 'too long';
    else this.chars.push(ch);
    return undefined;
  }

  /** A character of an escape sequence: the marks around a paste, or an editing key. */
  private escape(ch: string): 'enter' | undefined {
    this.sequence += ch;
    if (!WHOLE_SEQUENCE.test(this.sequence)) return undefined;
    const sequence = this.sequence;
    this.sequence = '';
    if (sequence === PASTE_START && !this.lineEnded) this.pasting = true;
    else if (sequence === PASTE_END && this.pasting) {
      this.pasting = false;
      if (this.lineEnded) return 'enter';
    } else this.refusal ??= 'editing key';
    return undefined;
  }
}

/**
 * Asks for a line on the terminal without echoing it. Raw mode is needed so that not even the
 * characters typed appear; it is always restored. Ends on Enter, on Ctrl-C (`interrupted`),
 * and on `signal` (SIGINT, SIGTERM or SIGHUP from outside: raw mode turns Ctrl-C into a
 * character, and nothing else would end the wait).
 */
export function readHiddenLine(
  question: { message: string; subject: string },
  terminal: { stdin: ReadStream; stderr: Output },
  signal: AbortSignal,
  interrupted: () => Error,
): Promise<string> {
  const { stdin, stderr } = terminal;
  return new Promise((resolve, reject) => {
    const line = new HiddenLine();
    const decoder = new StringDecoder('utf8');
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      signal.removeEventListener('abort', onAbort);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write(`${PASTE_MODE_OFF}\n`);
      if (error) reject(error);
      else if (line.refusal) reject(refused(question.subject, line.refusal));
      else resolve(line.text);
    };
    const onAbort = () => finish(interrupted());
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let ended = false;
      // The rest of the read after Enter is read too: text there is a paste of several lines.
      for (const ch of text) {
        const end = line.type(ch);
        if (end === 'interrupt') return finish(interrupted());
        ended ||= end === 'enter';
      }
      if (ended) finish();
    };
    if (signal.aborted) return reject(interrupted());
    // Raw mode (no echo) before the question: whatever is typed the moment it appears must
    // not be shown. A terminal that knows bracketed paste marks a paste, so that a line break
    // inside it is seen for what it is; one that does not ignores the request.
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
    signal.addEventListener('abort', onAbort, { once: true });
    stderr.write(`${PASTE_MODE_ON}${question.message}`);
  });
}

function refused(subject: string, why: Refusal): UsageError {
  // Of this answer alone: at a login's second try, the key typed first was sent.
  switch (why) {
    case 'too long':
      return new UsageError(`${subject} is longer than ${MAX_HIDDEN_LINE} characters`, {
        hint: 'Check what was pasted; it was not sent, and nothing was saved.',
      });
    case 'several lines':
      return new UsageError(`${subject} was pasted with a line break inside it`, {
        hint: 'It was not sent, and nothing was saved. Copy the key alone, on one line, and paste it again.',
      });
    case 'editing key':
      return new UsageError(`${subject} was typed with arrow keys or other editing keys`, {
        hint: 'It was not sent, and nothing was saved. Type or paste it alone; Backspace, Ctrl-U and Ctrl-W are the editing keys that work.',
      });
  }
}
