import { CommanderError } from 'commander';
import type { ChalkInstance } from 'chalk';
import { PetsError, UsageError } from '../errors.js';
import { stringifyJson } from '../json/int64-json.js';
import { escapeForTerminal } from '../output/terminal-text.js';
import type { Output } from './deps.js';

export interface ErrorReport {
  exitCode: number;
  code: string;
  message: string;
  hint?: string;
  status?: number;
  retryAfter?: number;
  resetAt?: string;
}

/** Turns anything thrown into what the user sees and the exit code. Stack traces only with --debug. */
export function describeError(error: unknown, debug: boolean): ErrorReport {
  if (error instanceof CommanderError) {
    const message = error.message.replace(/^error: /, '');
    return toReport(
      new UsageError(message, { hint: 'Run `pets --help` or `pets <command> --help` for usage.' }),
    );
  }
  if (error instanceof PetsError) return toReport(error);
  const detail =
    error instanceof Error
      ? debug
        ? (error.stack ?? error.message)
        : error.message
      : String(error);
  return {
    exitCode: 1,
    code: 'internal_error',
    message: `pets failed unexpectedly: ${detail}`,
    hint: 'Run again with --debug and report the output.',
  };
}

function toReport(error: PetsError): ErrorReport {
  return {
    exitCode: error.exitCode,
    code: error.code,
    message: error.message,
    hint: error.hint,
    status: error.status,
    retryAfter: error.retryAfter,
    resetAt: error.resetAt,
  };
}

/** Replaces every known key with *** so that no path can print one. */
export function redact(text: string, secrets: Iterable<string>): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 4) result = result.split(secret).join('***');
  }
  return result;
}

export function writeError(
  report: ErrorReport,
  stderr: Output,
  json: boolean,
  colors: ChalkInstance,
  secrets: Iterable<string>,
): void {
  const clean = (text: string) => redact(text, secrets);
  if (json) {
    const { exitCode, code, message, hint, status, retryAfter, resetAt } = report;
    const body = {
      code,
      message: clean(message),
      status: status ?? null,
      exitCode,
      hint: hint && clean(hint),
      retryAfter,
      resetAt,
    };
    stderr.write(`${stringifyJson({ error: body })}\n`);
    return;
  }
  const lines = clean(report.message).split('\n').map(escapeForTerminal);
  stderr.write(`${colors.red('error:')} ${lines.join('\n')}\n`);
  if (report.hint) stderr.write(`${escapeForTerminal(clean(report.hint))}\n`);
}
