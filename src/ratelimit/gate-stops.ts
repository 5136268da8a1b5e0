import { clockTime, formatDuration, type Clock } from '../core/clock.js';
import {
  InterruptedError,
  NetworkError,
  PetsError,
  RateLimitError,
  ServerUnavailableError,
} from '../core/errors.js';
import type { HttpRequest } from '../http/types.js';
import type { GateState, WaitReason } from './policy.js';
import type { ServerClock } from './server-clock.js';
import type { Waits } from './gate-waits.js';
import type { WaitRefusal } from './wait-limits.js';

/** Said once a process finds another client on its key, with no store shared by machines. */
export const ANOTHER_CLIENT =
  'another client is using this key; to share its limits across machines, set PETS_RATE_STORE (pets help rate-limits)';

type SentText = (sentWords: string) => string;

/** The gate's stopping: one stop for the whole run, and the count of requests sent it states. */
export class Stops {
  /**
   * Requests this process has sent, or let go and about to send: what a message may say was
   * sent. Counted when the gate lets a request go, so that a stop decided by another request
   * in the same moment counts it; taken back if it never leaves.
   */
  sent = 0;
  /** The stop that ended this process's sending: every request after it stops the same way. */
  stop?: PetsError;
  /**
   * Whether the stop is a block (a 429's cooldown, a ban, a lost store): then a request let go
   * before it and not yet sent stays, whereas a used-up quota's stop leaves those within the
   * budget.
   */
  private stopIsBlock = false;
  /** The stops' messages, told again if one counted as sent never leaves. */
  private readonly sentTexts: Array<[PetsError, SentText]> = [];
  /** This process has said another client uses the key (ANOTHER_CLIENT). */
  anotherClient = false;

  constructor(
    private readonly clock: Clock,
    private readonly time: ServerClock,
    private readonly waits: Waits,
    private readonly trace: (line: string) => void,
    private readonly redact?: (text: string) => string,
  ) {}

  /** The stop, when it is the shared store lost: nothing touches the store after it. */
  get storeLost(): NetworkError | undefined {
    const stop = this.stop;
    return stop instanceof NetworkError && stop.code === 'rate_store_lost' ? stop : undefined;
  }

  /**
   * Why nothing more may leave, if the run has stopped: the user's stop or the batch's
   * (`halted`), or this process's. A request already `letGo` within a quota that the stop says
   * is used up may still leave.
   */
  stopFor(request: HttpRequest, letGo = false): PetsError | undefined {
    // The batch halts on this process's stop too: the same exception for a used-up quota.
    const quotaStop = letGo && this.stop !== undefined && !this.stopIsBlock;
    const halted = request.halted?.aborted && !(quotaStop && request.halted.reason === this.stop);
    if (request.stopSending?.aborted || request.signal?.aborted || halted) {
      return new InterruptedError();
    }
    return quotaStop ? undefined : this.stop;
  }

  /**
   * `error` stops this process's every request from now on: one stop for the whole run, the
   * first; only a lost store replaces it, since nothing can be sent without the store.
   */
  stopWith<E extends PetsError>(error: E, text?: SentText, block = true): E {
    if (!this.stop || (error.code === 'rate_store_lost' && !this.storeLost)) {
      // After another client showed itself, the stop's hint (the line -q leaves) says how
      // to share the key, as the warning it silenced did.
      if (this.anotherClient && error instanceof RateLimitError) {
        const share = ANOTHER_CLIENT.replace('another', 'Another');
        (error as { hint: string | undefined }).hint = `${error.hint ?? ''} ${share}.`.trim();
      }
      this.stop = error;
      if (text) this.sentTexts.push([error, text]);
      this.stopIsBlock = block;
    }
    return error;
  }

  /** A request counted as sent never left: the count, and a stop's message, say so. */
  unsend(): void {
    this.sent--;
    for (const [error, text] of this.sentTexts) error.message = text(this.sentWords());
  }

  sentWords(): string {
    return this.sent === 0
      ? 'nothing was sent'
      : `pets stopped after sending ${requests(this.sent)}`;
  }

  /** The stop for the shared store `shared`, lost (exit 6): nothing more is sent. */
  loseStore(error: unknown, shared: string | undefined): NetworkError {
    if (this.storeLost) return this.storeLost;
    const reason = this.redact?.((error as Error).message) ?? (error as Error).message;
    this.trace(`the rate store ${shared} is lost: ${reason}`);
    const text = (sentWords: string) =>
      `lost the rate store ${shared} (${reason}); without it, machines sharing this key cannot keep to its limits, so ${sentWords} and nothing more is sent`;
    const stop = new NetworkError('rate_store_lost', text(this.sentWords()), {
      requestMayHaveArrived: false,
      // A store that forgot the key's state says what keeps it (redis-store.ts's StateForgotten).
      hint:
        (error as { hint?: string }).hint ??
        'Once the store is reachable again, run the same command: a batch resumes where it stopped.',
    });
    return this.stopWith(stop, text);
  }

  /**
   * The stop after MAX_REFUSALS refusals in a row (policy.ts): exit 5 for 429s, 7 for 503s,
   * saying how many and since when.
   */
  refusalStop(request: HttpRequest, state: GateState): PetsError {
    const { status, count, sinceMs } = state.refusals!;
    const localNow = this.clock.now();
    const since = clockTime(this.time.toLocal(sinceMs, state), localNow);
    const until = this.cooldownEnd(state);
    const at = clockTime(until, localNow);
    const answer = status === 429 ? '429 (rate limited)' : '503 (unavailable)';
    const text = (sentWords: string) =>
      `${request.method} ${request.url}: the server answered ${answer} ${count} times in a row since ${since}, ` +
      `each waited out with a longer backoff, and no request succeeded between, so ${sentWords}`;
    const hint =
      status === 429
        ? `Retry after ${at}; if the key is refused again, check it with the API's provider.`
        : `The server is unavailable: try again after ${at}.`;
    const [Kind, code] =
      status === 429
        ? [RateLimitError, state.cooldownCode ?? 'rate_limited']
        : [ServerUnavailableError, 'server_unavailable'];
    return this.stopUntil(Kind, code, text, until, localNow, { status, hint });
  }

  /**
   * The stop for a wait the command's limits refuse (exit 5): what blocks the key, when the
   * next request may go (carried as `resumeAt`), and why pets does not wait for it. Every
   * request of this process after it stops too, so that the count of requests sent is final.
   */
  waitRefused(
    request: HttpRequest,
    reason: WaitReason,
    waitMs: number,
    state: GateState,
    refusal: WaitRefusal,
  ): PetsError {
    const now = this.clock.now();
    const at = clockTime(now + waitMs, now);
    const banned = reason === 'cooldown' && state.cooldownCode === 'key_banned';
    const what = banned
      ? 'the server has temporarily banned this key'
      : reason === 'quota'
        ? `the quota of this key${state.quota ? ` (${requests(state.quota.limit)})` : ''} is used up`
        : 'the server rate limited this key (429)';
    const why =
      refusal === 'max-wait'
        ? this.beyondMaxWait(waitMs)
        : refusal === 'unattended'
          ? `longer than a batch waits unattended (${formatDuration(this.waits.limits.eachWaitMs)})`
          : 'and a batch does not wait out a ban';
    const text = (sentWords: string) =>
      `${request.method} ${request.url}: ${what}; the next request may go at ${at}, ` +
      `in ${formatDuration(waitMs)}, ${why}, so ${sentWords}`;
    const hint = banned
      ? `Stop every script that uses this key, then retry after ${at}.`
      : refusal === 'max-wait'
        ? `Retry after ${at}, or raise --max-wait.`
        : `Retry after ${at}, or give --max-wait to wait that long.`;
    const code = banned ? 'key_banned' : 'rate_limited';
    const status = reason === 'cooldown' ? 429 : undefined;
    // A quota used up blocks only the requests after those it let go, which may still leave.
    const block = reason !== 'quota';
    return this.stopUntil(RateLimitError, code, text, now + waitMs, now, { status, hint }, block);
  }

  /** Why a wait of `waitMs` is refused: longer than --max-wait, or than what is left of it. */
  private beyondMaxWait(waitMs: number): string {
    const { maxWaitMs } = this.waits.limits;
    const flag = `--max-wait (${exactSeconds(maxWaitMs)})`;
    const waitedMs = this.waits.waitedMs;
    if (waitMs > maxWaitMs || waitedMs === 0) return `beyond ${flag}`;
    return `more than is left of ${flag} after the ${exactSeconds(waitedMs)} this command has waited`;
  }

  /** The stop of a request still refused (429) after its last attempt, as `state` has it. */
  stillLimited(request: HttpRequest, attempts: number, state: GateState): PetsError {
    const now = this.clock.now();
    const until = this.cooldownEnd(state);
    const text = (sentWords: string) =>
      `${request.method} ${request.url}: still rate limited (429) after ${attempts} attempts; ${sentWords}`;
    const hint = `Retry after ${clockTime(until, now)}; other clients may be sharing this key.`;
    const code = state.cooldownCode ?? 'rate_limited';
    return this.stopUntil(RateLimitError, code, text, until, now, { status: 429, hint });
  }

  /** A stop (of `Kind`) until `until`, on this machine's clock, whose `now` is given. */
  private stopUntil(
    Kind: typeof RateLimitError | typeof ServerUnavailableError,
    code: string,
    text: SentText,
    until: number,
    now: number,
    details: { status?: number; hint: string },
    block = true,
  ): PetsError {
    const retryAfter = Math.max(0, Math.ceil((until - now) / 1000));
    const full = { ...details, retryAfter, resumeAt: new Date(until) };
    return this.stopWith(new Kind(code, text(this.sentWords()), full), text, block);
  }

  /** When the cooldown of `state` ends, on this machine's clock. */
  private cooldownEnd(state: GateState): number {
    return this.time.toLocal(state.cooldownUntilMs ?? this.time.now(state), state);
  }
}

export function requests(count: number): string {
  return `${count} ${count === 1 ? 'request' : 'requests'}`;
}

/** A duration as the seconds a user types for --max-wait, not rounded to minutes. */
function exactSeconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}
