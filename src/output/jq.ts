import { PetsError, UsageError } from '../core/errors.js';
import { escapeForTerminal } from '../core/terminal-text.js';

/** Exit 1: the --jq filter failed on the output, as `error("…")` or `.a` on an array does. */
export class JqRuntimeError extends PetsError {
  readonly exitCode = 1;
}

/** A compiled --jq filter, run once per JSON text that pets prints. */
export interface JqFilter {
  /**
   * What jq prints for `json` (exact JSON text), each result on a line of its own, strings
   * raw; `error` when the filter failed part way (after printing `output`).
   */
  run(json: string): { output: string; error?: JqRuntimeError };
}

// jq-wasm trims its stdout whole, which would eat spaces or blank lines a raw string begins
// or ends with. The filter runs between two results of this string, which nothing else
// prints, and the text between them is jq's output untouched.
const FENCE = '\u0000pets-jq\u0000';

/**
 * Loads jq and compiles `expression`, refusing one that does not compile (exit 2) before
 * anything is sent. `pretty`: indented results, as for a terminal; else one per line.
 * `terminal`: the output goes to a terminal, so control characters are shown escaped.
 */
export async function compileJq(
  expression: string,
  options: { pretty: boolean; terminal: boolean },
): Promise<JqFilter> {
  const { loadJq } = await import('./jq-engine.js');
  const jq = await loadJq();
  // With no input at all, jq compiles the program and runs it on nothing: a check that
  // cannot loop or fail at run time.
  const check = jq.raw('', expression, []);
  if (check.exitCode !== 0) {
    throw new UsageError(
      `--jq ${quoted(expression)} is not a valid jq expression: ${compileProblem(check.stderr)}`,
      {
        code: 'jq_invalid',
        hint: 'See https://jqlang.org/manual/ for the language.',
        detail: check.stderr,
      },
    );
  }
  const fenced = `${JSON.stringify(FENCE)},\n(${expression}\n),\n${JSON.stringify(FENCE)}`;
  const flags = options.pretty ? ['-r'] : ['-r', '-c'];
  return {
    run(json) {
      const result = whileSignalsEnd(() => jq.raw(json, fenced, flags));
      const output = unfenced(result.stdout);
      const shown = options.terminal ? safeForTerminal(output) : output;
      if (result.exitCode === 0) return { output: shown };
      return {
        output: shown,
        error: new JqRuntimeError(
          'jq_error',
          `--jq failed: ${runtimeProblem(result.stderr, result.exitCode)}`,
          {
            detail: result.stderr,
          },
        ),
      };
    },
  };
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs `work`, which holds the thread (jq runs to its end), with each signal's default
 * action back: no handler of pets could run before jq ends, so a filter that runs on and on
 * (`last(range(1e10))`) would otherwise ignore Ctrl-C. Ended this way, a batch is as after
 * kill -9: its journal already holds every record sent.
 */
function whileSignalsEnd<T>(work: () => T): T {
  const handlers = SIGNALS.map((signal) => [signal, process.listeners(signal)] as const);
  for (const [signal] of handlers) process.removeAllListeners(signal);
  try {
    return work();
  } finally {
    for (const [signal, listeners] of handlers) {
      for (const listener of listeners) process.on(signal, listener);
    }
  }
}

/** The text between the fences, each result ending in a newline; '' when there was none. */
function unfenced(stdout: string): string {
  const start = stdout.indexOf(FENCE);
  if (start === -1) return '';
  let body = stdout.slice(start + FENCE.length);
  const end = body.lastIndexOf(`\n${FENCE}`);
  // No closing fence: the filter failed part way, after what it printed.
  body = end === -1 ? body : body.slice(0, end);
  return body.startsWith('\n') ? `${body.slice(1)}\n` : '';
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

function quoted(expression: string): string {
  return `'${expression}'`;
}
