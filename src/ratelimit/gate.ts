import { followAbort } from '../abort.js';
import { readErrorBody } from '../api/validate.js';
import { clockTime, formatDuration, type Clock } from '../clock.js';
import { InterruptedError, NetworkError, RateLimitError } from '../errors.js';
import { parseJson } from '../json/int64-json.js';
import type { HttpRequest, HttpResponse, HttpSender } from '../http/types.js';
import {
  cooldownAfter429,
  observeResponse,
  reserveSend,
  type GateState,
  type WaitReason,
} from './policy.js';
import { readRateHeaders } from './read-headers.js';
import { MAX_ATTEMPTS, networkAttempts, retryBackoffMs, retryDecision } from './retry-policy.js';
import type { StateFile } from './state-file.js';

export interface WaitNotice {
  /** Why, in words: "rate limited", "pacing", … */
  reason: string;
  attempt: number;
  maxAttempts: number;
}

/** Sleeps `ms`, showing what it likes (a countdown); rejects at once when `signal` aborts. */
export type Waiter = (ms: number, notice: WaitNotice, signal?: AbortSignal) => Promise<void>;

export interface GateOptions {
  send: HttpSender;
  clock: Clock;
  random: () => number;
  /** The most one command may spend waiting, in all, before it gives up with exit 5. */
  maxWaitMs: number;
  stateFile?: StateFile;
  wait?: Waiter;
  trace?: (line: string) => void;
}

const SAVE_INTERVAL_MS = 250;

const WAIT_WORDS: Record<WaitReason, string> = {
  cooldown: 'rate limited',
  quota: 'quota used up',
  pacing: 'pacing',
};

/**
 * Sits between the API client and the transport, shared by every request of the process
 * on one key: waits as the policy decides, sends, learns from each answer, retries what the
 * contract allows, and keeps the state in the state file for the next pets process.
 */
export class RateGate {
  private state: GateState;
  private readonly wait: Waiter;
  private dirty = false;
  private savedAtMs = -Infinity;

  constructor(private readonly options: GateOptions) {
    this.state = options.stateFile?.load(options.clock.now()) ?? { consecutive429s: 0 };
    this.wait = options.wait ?? ((ms, _notice, signal) => options.clock.sleep(ms, signal));
  }

  /** The gate's view of the key, for `pets quota`. */
  get snapshot(): GateState {
    return this.state;
  }

  readonly send: HttpSender = async (request) => {
    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      waitedMs += await this.awaitSlot(request, attempt, waitedMs);
      if (request.stopSending?.aborted) throw new InterruptedError();
      let response: HttpResponse;
      try {
        response = await this.options.send(request);
      } catch (error) {
        if (!(error instanceof NetworkError) || !error.worthRetrying) throw error;
        const outcome = { kind: 'network', mayHaveArrived: error.requestMayHaveArrived } as const;
        const attempts = networkAttempts(error.code);
        const giveUp = error.afterAttempts(attempt);
        if (retryDecision(request.method, outcome) !== 'retry' || attempt >= attempts) throw giveUp;
        const backoff = retryBackoffMs(attempt, this.options.random);
        if (waitedMs + backoff > this.options.maxWaitMs) throw giveUp;
        waitedMs += await this.pause(
          backoff,
          error.code.replace(/_/g, ' '),
          attempt + 1,
          request,
          true,
          attempts,
        );
        continue;
      }

      const decision = retryDecision(request.method, { kind: 'response', status: response.status });
      this.learn(request, response);
      if (decision === 'final' || attempt >= MAX_ATTEMPTS) {
        if (decision === 'rate-limited') throw this.stillLimited(request, attempt);
        return response;
      }
      if (decision === 'retry') {
        const backoff = retryBackoffMs(attempt, this.options.random);
        if (waitedMs + backoff > this.options.maxWaitMs) return response;
        waitedMs += await this.pause(
          backoff,
          `retry after ${response.status}`,
          attempt + 1,
          request,
        );
      }
      // After a 429 the next loop's reservation waits out the cooldown, or gives up.
    }
  };

  /** Reserves this request's slot and waits for it; refuses when the wait exceeds the budget. */
  private async awaitSlot(
    request: HttpRequest,
    attempt: number,
    waitedMs: number,
  ): Promise<number> {
    const now = this.options.clock.now();
    const reservation = reserveSend(this.state, now);
    if (reservation.waitMs <= 0 || !reservation.reason) {
      this.state = reservation.state;
      return 0;
    }
    if (waitedMs + reservation.waitMs > this.options.maxWaitMs) {
      throw this.tooLong(request, reservation.reason, reservation.waitMs, attempt);
    }
    this.state = reservation.state;
    const quota = this.state.quota;
    this.trace(
      `wait ${formatDuration(reservation.waitMs)}: ${WAIT_WORDS[reservation.reason]}` +
        (reservation.reason === 'pacing' && quota
          ? ` (${quota.remaining + 1} left until ${clockTime(quota.resetAtMs)})`
          : ''),
    );
    return this.pause(reservation.waitMs, WAIT_WORDS[reservation.reason], attempt, request, false);
  }

  private async pause(
    ms: number,
    reason: string,
    attempt: number,
    request: HttpRequest,
    traced = true,
    maxAttempts = MAX_ATTEMPTS,
  ): Promise<number> {
    if (traced)
      this.trace(`wait ${formatDuration(ms)}: ${reason} (attempt ${attempt}/${maxAttempts})`);
    const stop = followAbort([request.signal, request.stopSending]);
    try {
      await this.wait(ms, { reason, attempt, maxAttempts }, stop.signal);
    } catch (error) {
      if (stop.signal.aborted) throw new InterruptedError();
      throw error;
    } finally {
      stop.dispose();
    }
    return ms;
  }

  private learn(request: HttpRequest, response: HttpResponse): void {
    const now = this.options.clock.now();
    const { quota, retryAfterMs } = readRateHeaders(response.headers, now);
    this.state = observeResponse(this.state, response.status, quota);
    const limited = response.status === 429;
    if (limited) {
      const code = serverErrorCode(response.text);
      const cooldown = cooldownAfter429(this.state, now, retryAfterMs, code, this.options.random);
      this.state = cooldown.state;
      this.trace(
        `429${code ? ` ${code}` : ''}: cooling down ${formatDuration(cooldown.waitMs)}` +
          (cooldown.serverWaitMs === undefined
            ? ' (the server gave no wait)'
            : ` (server asked ${formatDuration(cooldown.serverWaitMs)})`) +
          ` for ${request.method} ${request.url}`,
      );
    }
    if (quota || limited) this.persist(limited);
  }

  /**
   * Saves the state for the next process: at once when a cooldown starts, else at most every
   * quarter second, so a fast batch does not pay a file write per request. flush() saves
   * what is left when the process ends.
   */
  private persist(urgent: boolean): void {
    const now = this.options.clock.now();
    this.dirty = true;
    if (!urgent && now - this.savedAtMs < SAVE_INTERVAL_MS) return;
    this.flush();
  }

  flush(): void {
    if (!this.dirty || !this.options.stateFile) return;
    try {
      this.options.stateFile.save(this.state);
      this.savedAtMs = this.options.clock.now();
      this.dirty = false;
    } catch (error) {
      // The state file only helps the next process; failing to write it must not fail this one.
      this.trace(`could not save the rate-limit state: ${(error as Error).message}`);
    }
  }

  private tooLong(request: HttpRequest, reason: WaitReason, waitMs: number, attempt: number) {
    const until = this.options.clock.now() + waitMs;
    const banned = reason === 'cooldown' && this.state.cooldownCode === 'key_banned';
    const what = banned
      ? 'the server has temporarily banned this key'
      : reason === 'quota'
        ? `the quota of this key${this.state.quota ? ` (${this.state.quota.limit} requests)` : ''} is used up`
        : reason === 'cooldown'
          ? 'the server rate limited this key (429)'
          : 'pacing this key to its quota';
    const sent =
      attempt === 1
        ? 'nothing was sent'
        : `pets stopped after ${attempt - 1} ${attempt === 2 ? 'request' : 'requests'}`;
    return new RateLimitError(
      banned ? 'key_banned' : 'rate_limited',
      `${request.method} ${request.url}: ${what}; the next request may go at ${clockTime(until)}, ` +
        `in ${formatDuration(waitMs)}, beyond --max-wait (${formatDuration(this.options.maxWaitMs)}), so ${sent}`,
      {
        status: attempt === 1 ? undefined : 429,
        retryAfter: Math.ceil(waitMs / 1000),
        resetAt: new Date(until).toISOString(),
        hint: banned
          ? `Stop every script that uses this key, then retry after ${clockTime(until)}.`
          : `Retry after ${clockTime(until)}, or raise --max-wait.`,
      },
    );
  }

  private stillLimited(request: HttpRequest, attempts: number): RateLimitError {
    const until = this.state.cooldownUntilMs ?? this.options.clock.now();
    return new RateLimitError(
      this.state.cooldownCode ?? 'rate_limited',
      `${request.method} ${request.url}: still rate limited (429) after ${attempts} attempts`,
      {
        status: 429,
        retryAfter: Math.max(0, Math.ceil((until - this.options.clock.now()) / 1000)),
        resetAt: new Date(until).toISOString(),
        hint: `Retry after ${clockTime(until)}; other clients may be sharing this key.`,
      },
    );
  }

  private trace(line: string): void {
    this.options.trace?.(line);
  }
}

function serverErrorCode(text: string): string | undefined {
  try {
    return readErrorBody(parseJson(text))?.code;
  } catch {
    return undefined;
  }
}
