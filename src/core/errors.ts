// One class per failure kind; each knows its exit code (see the contract's exit-code table).
// `message` says what happened, `hint` what to do next. Neither ever holds an API key.

import { constants } from 'node:os';
import { getSystemErrorMessage } from 'node:util';
import { STOP_SIGNALS, type StopSignal } from './stop-signals.js';

/** The code Node or undici gives an error (ENOENT, UND_ERR_SOCKET, …), if it has one. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Why the system refused a path, in its words and with its code, as every message about a
 * user's path says it: "no such file or directory (ENOENT)", "permission denied (EACCES)".
 * `error` is the error, or the code alone (EISDIR, for a folder found by stat).
 */
export function systemReason(error: unknown): string {
  const code = typeof error === 'string' ? error : codeOf(error);
  const errno = code === undefined ? undefined : (constants.errno as Record<string, number>)[code];
  if (errno === undefined) return code ?? String(error);
  return `${getSystemErrorMessage(-errno)} (${code})`;
}

export interface ErrorDetails {
  hint?: string;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** Seconds to wait before retrying, when known. */
  retryAfter?: number;
  /** When the quota resets, as an ISO date, when known. */
  resetAt?: string;
  /** The server's own words about the failure, apart from the message, which is pets's. */
  detail?: string;
  cause?: unknown;
}

export abstract class PetsError extends Error {
  abstract readonly exitCode: number;
  readonly hint: string | undefined;
  readonly status: number | undefined;
  readonly retryAfter: number | undefined;
  readonly resetAt: string | undefined;
  readonly detail: string | undefined;

  constructor(
    readonly code: string,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.hint = details.hint;
    this.status = details.status;
    this.retryAfter = details.retryAfter;
    this.resetAt = details.resetAt;
    this.detail = details.detail;
  }

  /** Ends the message with what became of the request, e.g. of a create; `hint` replaces the hint. */
  withOutcome(outcome: string, hint?: string): this {
    this.message = `${this.message}; ${outcome}`;
    if (hint !== undefined) (this as { hint: string | undefined }).hint = hint;
    return this;
  }
}

/** Exit 1: a failure not listed elsewhere, such as a 400 from the server. */
export class RequestFailedError extends PetsError {
  readonly exitCode = 1;
}

/**
 * Exit 2: bad flag or value, or missing setup. Nothing was sent. Its code is usage_error,
 * unless `details.code` names a kind of its own (config_unsafe, say).
 */
export class UsageError extends PetsError {
  readonly exitCode = 2;
  constructor(message: string, details: ErrorDetails & { code?: string } = {}) {
    super(details.code ?? 'usage_error', message, details);
  }
}

/** Exit 2: the config file cannot be read. Its content is never quoted: it holds keys. */
export class ConfigFileError extends UsageError {
  constructor(path: string, problem: string) {
    super(`the config file ${path} ${problem}`, {
      code: 'config_unreadable',
      hint: `Fix or delete ${path}, then run \`pets profile set\` and \`pets auth login\` again.`,
    });
  }
}

/** Exit 3: the server answered 404. */
export class NotFoundError extends PetsError {
  readonly exitCode = 3;
}

/** Exit 4: no key, or the server answered 401. */
export class AuthError extends PetsError {
  readonly exitCode = 4;
}

/**
 * Exit 1: the server refused the key (403), as it would every request: a batch stops at the
 * first, as at a 401.
 */
export class ForbiddenError extends PetsError {
  readonly exitCode = 1;
}

/** Exit 5: rate limited beyond what this command may wait. */
export class RateLimitError extends PetsError {
  readonly exitCode = 5;
  /** When the next request may go: the moment to resume at, when known. */
  readonly resumeAt: Date | undefined;

  constructor(code: string, message: string, details: ErrorDetails & { resumeAt?: Date } = {}) {
    const { resumeAt, ...rest } = details;
    super(code, message, { ...rest, resetAt: rest.resetAt ?? resumeAt?.toISOString() });
    this.resumeAt = resumeAt;
  }
}

const FINAL_NETWORK_CODES = new Set([
  'timeout',
  'certificate_untrusted',
  'proxy_refused',
  'proxy_auth_required',
  'proxy_timeout',
  'proxy_tls_failed',
]);

/** Exit 6: no response: refused, reset, timed out. */
export class NetworkError extends PetsError {
  readonly exitCode = 6;
  /** False only when the connection was never made, so not a byte of the request left. */
  readonly requestMayHaveArrived: boolean;

  constructor(
    code: string,
    message: string,
    details: ErrorDetails & { requestMayHaveArrived: boolean },
  ) {
    super(code, message, details);
    this.requestMayHaveArrived = details.requestMayHaveArrived;
  }

  /**
   * Whether trying again can help: not after a timeout (the server already had --timeout
   * seconds), a certificate error (the same certificate comes back), nor a proxy's refusal
   * (the same proxy gives the same answer).
   */
  get worthRetrying(): boolean {
    return !FINAL_NETWORK_CODES.has(this.code);
  }

  /** The same failure, saying how many attempts met it when there was more than one. */
  afterAttempts(attempts: number): NetworkError {
    if (attempts < 2) return this;
    const details = { ...this, cause: this.cause };
    return new NetworkError(this.code, `${this.message} (${attempts} attempts)`, details);
  }
}

/** Exit 7: the server answered 5xx, or an answer that breaks the contract. */
export class ServerError extends PetsError {
  readonly exitCode = 7;
}

/**
 * Exit 7: the server answered 503 to too many requests in a row (the rate gate's bound), so
 * the run stopped: the requests it ends were not sent.
 */
export class ServerUnavailableError extends ServerError {}

/**
 * Interrupted by the user: exit 130, as after Ctrl-C, or, stopped by SIGTERM or SIGHUP, the
 * exit code a shell gives that signal.
 */
export class InterruptedError extends PetsError {
  readonly exitCode: number;
  /** Whether the request was already on its way: a create may then have happened. */
  readonly requestSent: boolean;

  constructor(requestSent = false, message = 'interrupted', signal: StopSignal = 'SIGINT') {
    super('interrupted', message);
    this.requestSent = requestSent;
    this.exitCode = STOP_SIGNALS[signal];
  }
}

/** Exit 1: the journal of a batch could not be written midway (a full disk); the run stopped. */
export class JournalError extends PetsError {
  readonly exitCode = 1;

  constructor(path: string, cause: unknown) {
    super(
      'journal_write_failed',
      `the journal ${path} could not be written (${codeOf(cause) ?? 'error'}), so the batch stopped: no record is sent before its journal entry is written`,
      {
        hint: 'Free some space, then run the same command again: it resumes from the journal.',
        cause,
      },
    );
  }
}

/** What the state folder holds for a batch, and what a batch without it could do wrong. */
const SHARED_STATE = {
  'rate-limits': {
    what: 'the rate-limit state',
    risk: 'pets processes on this key cannot share its limits',
  },
  journals: {
    what: "the list of this key's journals",
    risk: 'a renamed or copied input could send its records twice',
  },
} as const;

/**
 * Exit 1: what pets processes on one key share in the state folder cannot be written, so a
 * batch does not start: alone in its memory, it could get the key banned by sending into a
 * window others have used, or send again records another journal holds.
 */
export class SharedStateError extends PetsError {
  readonly exitCode = 1;

  constructor(folder: string, cause: unknown, part: keyof typeof SHARED_STATE = 'rate-limits') {
    const reason = (cause as Error | null)?.message?.split(',')[0] ?? String(cause);
    const { what, risk } = SHARED_STATE[part];
    super(
      'state_unwritable',
      `${what} cannot be written in ${folder} (${reason}), so the batch did not start: without it, ${risk}`,
      {
        hint: 'Free some space or make the folder writable (or point PETS_CONFIG_DIR elsewhere), then run the command again.',
        cause,
      },
    );
  }
}

/**
 * Exit 1: pets cannot write in a folder it keeps files in (the config folder, the state
 * folder): its file system is read-only, this user may not write there, or the disk is full.
 */
export class FolderWriteError extends PetsError {
  readonly exitCode = 1;

  constructor(
    /** What the folder is to a user: "the config folder", say. */
    what: string,
    readonly folder: string,
    reason: string,
    hint: string,
    cause: unknown,
  ) {
    super('folder_unwritable', `${what} ${folder} cannot be written: ${reason}`, { hint, cause });
  }
}

/** The fields of an error as --json prints them, per record or for the whole run. */
export interface ErrorJson {
  code: string;
  message: string;
  status: number | null;
  exitCode: number;
  /** The server's own words, when it gave some. */
  detail?: string;
}

/** The JSON of a failure pets finds itself (a bad record, a record not sent): no HTTP status. */
export function ownErrorJson(code: string, message: string, exitCode: number): ErrorJson {
  return { code, message, status: null, exitCode };
}

export function errorJson(error: PetsError): ErrorJson {
  return {
    code: error.code,
    message: error.message,
    status: error.status ?? null,
    exitCode: error.exitCode,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
  };
}
