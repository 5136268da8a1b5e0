import type { ReadStream } from 'node:tty';
import { InterruptedError, UsageError } from '../core/errors.js';
import type { Io, Output } from './io.js';

/**
 * Asks for a secret on the terminal without echoing it. Raw mode is needed so that not even
 * the characters typed appear; it is always restored.
 */
export function promptSecret(question: string, stdin: ReadStream, stderr: Output): Promise<string> {
  return new Promise((resolve, reject) => {
    let secret = '';
    // Arrow keys and other editing keys arrive as escape sequences: they are not part of a
    // key, and what the person meant by them cannot be known, so the key is refused.
    const escapes = new EscapeSequences();
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else if (escapes.seen) {
        reject(
          new UsageError('the key was typed with arrow keys or other editing keys', {
            hint: 'Nothing was saved. Type or paste the key alone; Backspace is the only editing key.',
          }),
        );
      } else resolve(secret);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (escapes.consume(ch)) continue;
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

/** Recognises ESC sequences (CSI `ESC [ … final`, SS3 `ESC O x`, `ESC x`), one character at a time. */
export class EscapeSequences {
  seen = false;
  private state: 'text' | 'escape' | 'csi' | 'ss3' = 'text';

  /** Whether `ch` belongs to an escape sequence (and so is not text). */
  consume(ch: string): boolean {
    switch (this.state) {
      case 'text':
        if (ch !== '\u001b') return false;
        this.seen = true;
        this.state = 'escape';
        return true;
      case 'escape':
        this.state = ch === '[' ? 'csi' : ch === 'O' ? 'ss3' : 'text';
        return true;
      case 'csi':
        // Parameter and intermediate bytes continue the sequence; 0x40–0x7e ends it.
        if (ch >= '@' && ch <= '~') this.state = 'text';
        return true;
      case 'ss3':
        this.state = 'text';
        return true;
    }
  }
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

/** A question with a typed answer. */
export interface TextQuestion {
  message: string;
  /** Why an answer cannot be taken, or undefined: a refused answer is asked again, with the reason. */
  check?: (answer: string) => string | undefined;
  /** Without colour: --no-color, NO_COLOR and the like (Session.prompts sets it). */
  plain?: boolean;
}

/** A question answered by picking one of `choices` with the arrow keys and Enter. */
export interface ChoiceQuestion<T extends string> {
  message: string;
  choices: ReadonlyArray<{ value: T; name: string }>;
  /** Where the cursor starts: Enter alone takes it. */
  default?: T;
  /** Without colour: --no-color, NO_COLOR and the like (Session.prompts sets it). */
  plain?: boolean;
}

/** Questions for a person at the terminal. A command asks only where `Session.canPrompt`. */
export interface Prompter {
  text(question: TextQuestion): Promise<string>;
  choice<T extends string>(question: ChoiceQuestion<T>): Promise<T>;
}

/**
 * Questions on the terminal of `io`, drawn by @inquirer/prompts on stderr (stdout stays the
 * command's output). Ctrl-C at a question ends the run as an interrupt does: exit 130.
 */
export function terminalPrompter(io: Io, signal: AbortSignal): Prompter {
  return {
    async text(question) {
      const { input } = await import('./inquirer.js');
      return asked(
        input(
          {
            message: question.message,
            validate: (answer) => question.check?.(answer) ?? true,
            theme: { validationFailureMode: 'keep', ...(question.plain ? PLAIN : {}) },
          },
          await context(io, signal),
        ),
      );
    },
    async choice(question) {
      const { select } = await import('./inquirer.js');
      return asked(
        select(
          {
            message: question.message,
            choices: question.choices,
            default: question.default,
            ...(question.plain ? { theme: PLAIN_CHOICE } : {}),
          },
          await context(io, signal),
        ),
      );
    },
  };
}

// The library's look without its colours (it asks Node's styleText, which knows NO_COLOR but
// not --no-color).
const same = (text: string) => text;
const PLAIN = {
  prefix: { idle: '?', done: '✔' },
  style: {
    answer: same,
    message: same,
    error: (text: string) => `> ${text}`,
    defaultAnswer: (text: string) => `(${text})`,
    help: same,
    highlight: same,
    key: (text: string) => `<${text}>`,
  },
};
const PLAIN_CHOICE = {
  ...PLAIN,
  style: {
    ...PLAIN.style,
    disabled: same,
    description: same,
    keysHelpTip: (keys: [string, string][]) =>
      keys.map(([key, action]) => `${key} ${action}`).join(' • '),
  },
};

async function context(io: Io, signal: AbortSignal) {
  const { Writable } = await import('node:stream');
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stderr.write(chunk.toString());
      done();
    },
  });
  // The library wraps its lines to the terminal's width.
  Object.defineProperty(output, 'columns', { get: () => process.stderr.columns || 80 });
  return { input: io.stdin, output, signal };
}

async function asked<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    // Ctrl-C (ExitPromptError) or pets's own interrupt (AbortPromptError).
    if (error instanceof Error && /^(Exit|Abort)PromptError$/.test(error.name)) {
      throw new InterruptedError(false, 'interrupted at a question; nothing was sent or saved');
    }
    throw error;
  }
}
