import type { Palette } from '../output/color.js';
import { CommanderError } from 'commander';
import { PetsError, UsageError, type ErrorDetails } from '../core/errors.js';
import { escapeForTerminal } from '../core/terminal-text.js';
import { redact } from '../core/redact.js';
import type { Output } from './io.js';
import { StderrNotices } from './stderr-notices.js';

/** The error's details (`detail`: in JSON always, in text with --debug), apart from its cause. */
export interface ErrorReport extends Omit<ErrorDetails, 'cause'> {
  exitCode: number;
  code: string;
  message: string;
  /** Whether --debug was given: the text then shows `detail` too. */
  debug: boolean;
  /** Only for unexpected errors, under --debug. */
  stack?: string;
}

/** Turns anything thrown into what the user sees and the exit code. Stack traces only with --debug. */
export function describeError(
  error: unknown,
  debug: boolean,
  words: readonly string[] = [],
): ErrorReport {
  if (error instanceof CommanderError) {
    // commander puts its "(Did you mean …?)" on a second line; one line reads better and
    // survives the escaping of newlines in messages.
    // commander.help: a group (or pets) run without a command; under --json it has no usage text.
    const message =
      error.code === 'commander.help'
        ? 'a command is needed'
        : withShortOptionSuggestion(
            error.code,
            error.message.replace(/^error: /, '').replace(/\n+/g, ' '),
          );
    // The command that found the error names its own help (cmd/shared/help-text.ts).
    const help = 'helpCommand' in error ? String(error.helpCommand) : 'pets --help';
    const hint = jsonFieldListSlip(error.code, words)
      ? "--json takes no field list; to pick fields use --jq '.[] | {id, name}'"
      : `Run \`${help}\` for usage.`;
    return toReport(new UsageError(message, { hint }), debug);
  }
  if (error instanceof PetsError) return toReport(error, debug);
  return {
    debug,
    exitCode: 1,
    code: 'internal_error',
    message: `pets failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
    hint: 'Run again with --debug and report the output.',
    stack: debug && error instanceof Error ? error.stack : undefined,
  };
}

/** `pets list --json id,name`, as gh takes it: the word after --json is an extra argument. */
function jsonFieldListSlip(code: string, words: readonly string[]): boolean {
  if (code !== 'commander.excessArguments') return false;
  const next = words[words.indexOf('--json') + 1];
  return words.includes('--json') && next !== undefined && !next.startsWith('-');
}

// pets's short options. commander suggests only for long ones; a short option in the wrong
// case (-v for -V) is the usual slip.
const SHORT_OPTIONS: Readonly<Record<string, string>> = {
  '-V': '-V (--version)',
  '-h': '-h (--help)',
  '-q': '-q (--quiet)',
};

function withShortOptionSuggestion(code: string, message: string): string {
  const flag = /^unknown option '(-[A-Za-z])'$/.exec(message)?.[1];
  if (code !== 'commander.unknownOption' || flag === undefined) return message;
  const swapped = flag === flag.toLowerCase() ? flag.toUpperCase() : flag.toLowerCase();
  const meant = SHORT_OPTIONS[swapped];
  return meant ? `${message} (Did you mean ${meant}?)` : message;
}

function toReport(error: PetsError, debug: boolean): ErrorReport {
  const { exitCode, code, message, hint, status, retryAfter, resetAt, detail } = error;
  return { debug, exitCode, code, message, hint, status, retryAfter, resetAt, detail };
}

/**
 * The error as the run's last word on stderr: `error: <message>`, the hint, and with --debug
 * the server's own words and any stack; under --json one `{"error":{…}}` line.
 */
export function writeError(
  report: ErrorReport,
  stderr: Output,
  json: boolean,
  colors: Palette,
  secrets: Iterable<string>,
): void {
  const clean = (text: string) => redact(text, secrets);
  const { exitCode, code, message, hint, status, retryAfter, resetAt, detail } = report;
  const notice = {
    code,
    message: clean(message),
    status: status ?? null,
    exitCode,
    hint: hint && clean(hint),
    retryAfter,
    resetAt,
    detail: detail && clean(detail),
  };
  // Each line is escaped whole: a newline from the server must not start a line of its own.
  const lines = [`${colors.red('error:')} ${escapeForTerminal(notice.message)}`];
  if (notice.hint) lines.push(escapeForTerminal(notice.hint));
  if (report.debug && notice.detail) {
    lines.push(colors.dim(escapeForTerminal(`the server said: ${notice.detail}`)));
  }
  if (report.stack) lines.push(...clean(report.stack).split('\n').map(escapeForTerminal));
  new StderrNotices(stderr, json).write('error', notice, lines.join('\n'));
}
