import { PetsError, UsageError } from '../core/errors.js';
import { STOP_SIGNALS, type StopSignal } from '../core/stop-signals.js';
import { escapeForTerminal } from '../core/terminal-text.js';
import type { JqEngine, JqOutcome } from './jq-engine.js';

/** Exit 1: the --jq filter failed on the output, as `error("…")` or `.a` on an array does. */
export class JqRuntimeError extends PetsError {
  readonly exitCode = 1;
}

/** The filter ended the run with `halt_error`: its message and exit code, as jq's are. */
export class JqHaltError extends PetsError {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super('jq_halt', message);
  }
}

export interface JqOutput {
  /** Results: whole lines, as jq makes them. False when the reader has gone. */
  write(text: string): boolean;
  /** What the filter's `debug` (a `["DEBUG:",…]` line) or `stderr` (raw text) says. */
  say(kind: 'debug' | 'stderr', text: string): void;
}

/** A compiled --jq filter, run once per JSON text that pets prints. */
export interface JqFilter {
  /**
   * Runs the filter on `json` (exact JSON text), writing each result to `output` as jq makes
   * it, strings raw; returns how it failed, if it did (after writing what it made).
   */
  run(json: string, output: JqOutput): JqRuntimeError | JqHaltError | undefined;
}

/**
 * The memory a filter may take beyond its input: past it a filter is running away
 * (`def f: [f]; f`, `"a" * 1e9`) and stops with exit 1 instead of taking the machine's.
 */
export const JQ_HEAP_BYTES = 64 * 1024 * 1024;
/**
 * What jq takes to hold a JSON text as values, per byte of the text, generously: an 8 MiB
 * answer (the largest pets reads) of pets measured 80 MiB of heap for `.` or `sort_by(.name)`.
 * A page of 100 pets adds under 1 MiB to the bound.
 */
const JQ_HEAP_PER_INPUT_BYTE = 8;
/**
 * The longest line of jq's output pets holds: each line is printed whole, so that a key is
 * redacted and a control character escaped wherever the line was cut.
 */
export const JQ_LINE_BYTES = 32 * 1024 * 1024;
/** Lines to a pipe or file go out in writes of about this size; to a terminal, at once. */
const PIPE_CHUNK_BYTES = 64 * 1024;

// Each run has one input, so jq's `input` and `inputs` have none to give. jq-wasm's own
// `input` fails with "break"; these say what jq says.
const NO_MORE_INPUT = 'def input: error("No more inputs"); def inputs: empty; ';

/**
 * Loads jq and compiles `expression`, refusing one that does not compile (exit 2) before
 * anything is sent. `pretty`: indented results, as for a terminal; else one per line.
 * `terminal`: the output goes to a terminal, so control characters are shown escaped.
 */
export async function compileJq(
  expression: string,
  options: { pretty: boolean; terminal: boolean },
): Promise<JqFilter> {
  const { loadJqEngine } = await import('./jq-engine.js');
  const engine = await loadJqEngine();
  // Compiled as the user wrote it, so that a syntax error's line and column are theirs. With
  // no input at all, jq compiles the program and runs it on nothing: a check that cannot loop
  // or fail at run time.
  let stderr = '';
  const check = engine.run(
    '',
    expression,
    [],
    { stdout: () => true, stderr: (bytes) => void (stderr += Buffer.from(bytes).toString()) },
    JQ_HEAP_BYTES,
  );
  // jq folds constants as it compiles (`"a" * 1e9`): a valid filter that runs out of memory.
  if (check.kind === 'aborted' || (check.kind === 'exited' && check.outOfMemory)) {
    throw runFailed(check, JQ_HEAP_BYTES);
  }
  if (check.kind !== 'exited' || check.exitCode !== 0) {
    throw new UsageError(
      `--jq '${expression}' is not a valid jq expression: ${compileProblem(stderr)}`,
      {
        code: 'jq_invalid',
        hint: 'See https://jqlang.org/manual/ for the language.',
        detail: stderr,
      },
    );
  }
  // On the first line of the program, so that the lines jq counts are the user's.
  const program = `${NO_MORE_INPUT}${expression}`;
  const flags = options.pretty ? ['-r'] : ['-r', '-c'];
  return {
    run: (json, output) => runFilter(engine, json, program, flags, output, options.terminal),
  };
}

function runFilter(
  engine: JqEngine,
  json: string,
  program: string,
  flags: readonly string[],
  output: JqOutput,
  terminal: boolean,
): JqRuntimeError | JqHaltError | undefined {
  const results = new Lines();
  const stderr = new StderrReader(output);
  let pending = '';
  let tooLong = false;
  let readerGone = false;
  const flush = (): boolean => {
    const text = pending;
    pending = '';
    readerGone ||= text !== '' && !output.write(terminal ? safeForTerminal(text) : text);
    return !readerGone;
  };
  const heapBytes = JQ_HEAP_BYTES + JQ_HEAP_PER_INPUT_BYTE * json.length;
  const outcome = whileSignalsEnd(() =>
    engine.run(
      json,
      program,
      flags,
      {
        stdout(bytes) {
          const lines = results.add(bytes);
          if (lines === undefined) {
            tooLong = true;
            return false;
          }
          pending += lines;
          // A result shows as jq makes it on a terminal; in a pipe, in writes of some size.
          return terminal || pending.length >= PIPE_CHUNK_BYTES ? flush() : true;
        },
        stderr: (bytes) => stderr.add(bytes),
      },
      heapBytes,
    ),
  );
  if (tooLong) {
    flush();
    return new JqRuntimeError(
      'jq_output_too_long',
      `--jq stopped: a line of its output is longer than ${mebibytes(JQ_LINE_BYTES)}, the most pets holds`,
      { hint: 'Split the result into smaller values, e.g. with .[] instead of the whole array.' },
    );
  }
  pending += results.rest();
  // The reader has gone: nothing is wrong with the filter, and the run stops as it must.
  if (!flush() || outcome.kind === 'stopped') return undefined;
  if (outcome.kind === 'aborted' || outcome.outOfMemory) {
    stderr.end(0);
    return runFailed(outcome, heapBytes);
  }
  const last = stderr.end(outcome.exitCode);
  if (last.error !== undefined) {
    return new JqRuntimeError(
      'jq_error',
      `--jq failed: ${runtimeProblem(last.error, outcome.exitCode)}`,
      { detail: last.error },
    );
  }
  if (outcome.exitCode === 0) return undefined;
  // halt_error: its message as it wrote it, less the line end jq adds to a non-string.
  return new JqHaltError(
    outcome.exitCode,
    last.halt?.replace(/\n$/, '') || `--jq stopped with exit code ${outcome.exitCode}`,
  );
}

/**
 * A run of jq that aborted, or was refused more than `heapBytes` of memory (then jq may
 * have said so and exited).
 */
function runFailed(outcome: Exclude<JqOutcome, { kind: 'stopped' }>, heapBytes: number) {
  if (outcome.outOfMemory) {
    return new JqRuntimeError(
      'jq_error',
      `--jq failed: the filter needed more than ${mebibytes(heapBytes)} of memory`,
      { hint: 'A filter that calls itself without end, or builds a huge value, does this.' },
    );
  }
  return new JqRuntimeError(
    'jq_error',
    `--jq failed: ${outcome.kind === 'aborted' ? outcome.problem : 'jq stopped'}`,
  );
}

/**
 * jq's stderr, told apart: its own error message (one write, "jq: error …"), which ends the
 * run; `debug` lines (`["DEBUG:",…]`, written a piece at a time); and the raw text of
 * `stderr` and `halt_error`, one write each. The last raw text is held until something else
 * comes, since the message of a halt_error is the last thing its run writes.
 */
class StderrReader {
  private debug?: string;
  private held?: string;
  private error?: string;

  constructor(private readonly output: JqOutput) {}

  add(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const text = Buffer.from(bytes).toString();
    if (this.debug === undefined) {
      if (text.startsWith('jq: error')) {
        this.error = (this.error ?? '') + text;
        return;
      }
      this.release();
      this.debug = '';
    }
    this.debug += text;
    if (this.debug.endsWith('\n') && this.debug.startsWith(DEBUG_START)) {
      this.output.say('debug', this.debug.slice(0, -1));
      this.debug = undefined;
    } else if (!couldBeDebug(this.debug) || this.debug.length > JQ_LINE_BYTES) {
      // Raw text, or text that began as a debug line and is not one (or is too long to hold).
      this.held = this.debug;
      this.debug = undefined;
    }
  }

  /**
   * The run's last words, once it ended with `exitCode`: jq's error message, or the message
   * of a halt_error. Anything else held is said.
   */
  end(exitCode: number): { error?: string; halt?: string } {
    if (this.debug?.startsWith(DEBUG_START)) this.output.say('debug', this.debug.trimEnd());
    else if (this.debug !== undefined) this.held = this.debug;
    this.debug = undefined;
    if (this.error !== undefined || exitCode === 0) {
      this.release();
      return { error: this.error?.trim() };
    }
    return { halt: this.held };
  }

  private release(): void {
    if (this.held !== undefined) this.output.say('stderr', this.held);
    this.held = undefined;
  }
}

const DEBUG_START = '["DEBUG:",';

function couldBeDebug(text: string): boolean {
  return text !== '' && (DEBUG_START.startsWith(text) || text.startsWith(DEBUG_START));
}

/**
 * Bytes gathered into whole lines, holding at most JQ_LINE_BYTES of a line. Lines are cut at
 * '\n' bytes, which never fall inside a UTF-8 character, so each decodes whole.
 */
class Lines {
  private partial: Uint8Array[] = [];
  private held = 0;

  /** The lines that `bytes` complete, each with its '\n'; undefined when one is too long. */
  add(bytes: Uint8Array): string | undefined {
    const end = bytes.lastIndexOf(0x0a);
    if (end === -1) {
      this.partial.push(bytes);
      this.held += bytes.length;
      return this.held > JQ_LINE_BYTES ? undefined : '';
    }
    const text = Buffer.concat([...this.partial, bytes.subarray(0, end + 1)]).toString();
    const rest = bytes.subarray(end + 1);
    this.partial = rest.length ? [rest] : [];
    this.held = rest.length;
    return text;
  }

  rest(): string {
    const text = Buffer.concat(this.partial).toString();
    this.partial = [];
    this.held = 0;
    return text;
  }
}

/**
 * Runs `work`, which holds the thread (jq runs to its end), with each signal's default
 * action back: no handler of pets could run before jq ends, so a filter that runs on and on
 * (`last(range(1e10))`) would otherwise ignore Ctrl-C. Ended this way, a batch is as after
 * kill -9: its journal already holds every record sent.
 */
function whileSignalsEnd<T>(work: () => T): T {
  const handlers = (Object.keys(STOP_SIGNALS) as StopSignal[]).map(
    (signal) => [signal, process.listeners(signal)] as const,
  );
  for (const [signal] of handlers) process.removeAllListeners(signal);
  try {
    return work();
  } finally {
    for (const [signal, listeners] of handlers) listeners.forEach((l) => process.on(signal, l));
  }
}

/** jq's "syntax error, unexpected …, line 1, column 2" without its program listing. */
function compileProblem(stderr: string): string {
  const first = stderr.split('\n')[0] ?? '';
  return (
    first
      .replace(/^jq: error: /, '')
      .replace(/ at <top-level>,/, ',')
      .replace(/:$/, '') || stderr
  );
}

/** jq's own words for a run-time failure, without "jq: error (at /dev/stdin:0): ". */
function runtimeProblem(stderr: string, exitCode: number): string {
  const said = stderr.replace(/^jq: error \(at [^)]*\): /, '').trim();
  return said === '' ? `jq stopped with exit code ${exitCode}` : said;
}

/** On a terminal, text from the server is shown, not obeyed; tabs and line ends stay. */
function safeForTerminal(output: string): string {
  return output
    .split('\n')
    .map((line) => line.split('\t').map(escapeForTerminal).join('\t'))
    .join('\n');
}

/** Whole mebibytes, rounded down: "more than" it stays true. */
function mebibytes(bytes: number): string {
  return `${Math.floor(bytes / (1024 * 1024))} MiB`;
}
