import type { ReadStream } from 'node:tty';
import { InterruptedError, PetsError } from '../core/errors.js';
import type { Io } from './io.js';

/**
 * The most characters a question's answer takes. The prompt library redraws the whole answer
 * on every key, so a paste costs time in the square of its length (20 KB took 42 s, with
 * Ctrl-C queued behind it). At this length a 200 KB paste is refused in about 0.1-0.3 s on a
 * busy machine (1,000 took 0.5-1.4 s); answers to pets's questions are far shorter.
 */
export const MAX_ANSWER_LENGTH = 256;

/** A question with a typed answer. */
export interface TextQuestion {
  message: string;
  /**
   * Why an answer cannot be taken, or undefined: a refused answer is asked again, with the
   * reason, as is one cut at the length limit. Without a check, the answer is taken once,
   * whatever it is (a profile's name to type: a cut paste is not the name either).
   */
  check?: (answer: string) => string | undefined;
  /** Without colour: --no-color, NO_COLOR and the like (Session.prompts sets it). */
  plain?: boolean;
}

/**
 * A text question's check from the parser its answer goes through: why `parse` refuses an
 * answer (the error's message, then its hint if it has one), or undefined when it takes it.
 */
export function refusalOf(parse: (answer: string) => unknown) {
  return (answer: string): string | undefined => {
    try {
      parse(answer);
      return undefined;
    } catch (error) {
      if (error instanceof PetsError && error.hint) return `${error.message}. ${error.hint}`;
      return error instanceof Error ? error.message : String(error);
    }
  };
}

/** A question answered by picking one of `choices` with the arrow keys and Enter. */
export interface SelectQuestion<T extends string> {
  message: string;
  choices: ReadonlyArray<{ value: T; name: string }>;
  /** Where the cursor starts: Enter alone takes it. */
  default?: T;
  /** Without colour: --no-color, NO_COLOR and the like (Session.prompts sets it). */
  plain?: boolean;
}

/** A question whose answer is not shown as it is typed: a key. */
export interface SecretQuestion {
  message: string;
  /** What is asked for, as errors name it: `the API key`. */
  subject: string;
}

/**
 * Questions for a person at the terminal: every question pets asks goes through one of these.
 * A command asks only where `Session.canPrompt`. Each ends the run as an interrupt does on
 * Ctrl-C, and on SIGINT, SIGTERM or SIGHUP from outside, with nothing sent or saved.
 */
export interface Prompter {
  text(question: TextQuestion): Promise<string>;
  select<T extends string>(question: SelectQuestion<T>): Promise<T>;
  /**
   * Typed without echo. Backspace, Ctrl-U and Ctrl-W edit it; any other editing key refuses
   * it (a UsageError), since what the person meant by it cannot be seen.
   */
  secret(question: SecretQuestion): Promise<string>;
}

/**
 * Questions on the terminal of `io`, on stderr (stdout stays the command's output): drawn by
 * @inquirer/prompts, loaded only by a run that asks, apart from the hidden line, which is
 * pets's own. `signal` is the run's: the first SIGINT, SIGTERM or SIGHUP ends a question.
 */
export function terminalPrompter(io: Io, signal: AbortSignal): Prompter {
  return {
    text: (question) =>
      withLibrary(io, signal, ({ input }, context) =>
        input(
          {
            message: question.message,
            validate: (answer) =>
              !question.check || (tooLong(answer) ?? question.check(answer) ?? true),
            theme: { validationFailureMode: 'keep', ...(question.plain ? PLAIN : {}) },
          },
          context,
        ),
      ),
    select: (question) =>
      withLibrary(io, signal, ({ select }, context) =>
        select(
          {
            message: question.message,
            choices: question.choices,
            default: question.default,
            ...(question.plain ? { theme: PLAIN_CHOICE } : {}),
          },
          context,
        ),
      ),
    async secret(question) {
      const { readHiddenLine } = await import('./hidden-line.js');
      const terminal = { stdin: io.stdin as ReadStream, stderr: io.stderr };
      return readHiddenLine(question, terminal, signal, interruptedAtQuestion);
    },
  };
}

/** Refuses an answer that the input limit cut (see LineLimit), saying why. */
function tooLong(answer: string): string | undefined {
  return answer.length > MAX_ANSWER_LENGTH
    ? `At most ${MAX_ANSWER_LENGTH} characters can be typed here; the rest was dropped.`
    : undefined;
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

type Library = typeof import('./inquirer.js');
interface Context {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  signal: AbortSignal;
}

/**
 * Runs one question of the prompt library on the terminal of `io`. It reads stdin through a
 * LineLimit, so that a long paste is answered at once; Ctrl-C ends the run as an interrupt
 * does (exit 130), as the run's `signal` does.
 */
async function withLibrary<T>(
  io: Io,
  signal: AbortSignal,
  question: (library: Library, context: Context) => Promise<T>,
): Promise<T> {
  const [library, { Writable }, { limitedInput }] = await Promise.all([
    import('./inquirer.js'),
    import('node:stream'),
    import('./line-limit.js'),
  ]);
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stderr.write(chunk.toString());
      done();
    },
  });
  // The library wraps its lines to the terminal's width.
  Object.defineProperty(output, 'columns', { get: () => process.stderr.columns || 80 });
  // One character over the limit is kept, so that `tooLong` can tell a cut answer.
  const { input, detach } = limitedInput(io.stdin as ReadStream, MAX_ANSWER_LENGTH + 1);
  try {
    return await question(library, { input, output, signal });
  } catch (error) {
    // Ctrl-C (ExitPromptError) or pets's own interrupt (AbortPromptError).
    if (error instanceof Error && /^(Exit|Abort)PromptError$/.test(error.name)) {
      throw interruptedAtQuestion();
    }
    throw error;
  } finally {
    detach();
  }
}

/** Ctrl-C typed at a question, or the run's interrupt reaching it. */
function interruptedAtQuestion(): InterruptedError {
  return new InterruptedError(false, 'interrupted at a question; nothing was sent or saved');
}
