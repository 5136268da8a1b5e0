import { formatDuration, type Clock } from '../core/clock.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { observeAnswer, refusedTooOften, type GateState } from './policy.js';
import { readDate, readRateHeaders } from './rate-headers.js';
import type { ServerClock } from './server-clock.js';
import type { SharedState } from './gate-shared.js';
import { ANOTHER_CLIENT, requests, type Stops } from './gate-stops.js';

export interface LearningOptions {
  clock: Clock;
  random: () => number;
  trace?: (line: string) => void;
  /** Says, once, that the state cannot be shared with other processes (one line). */
  warn?: (line: string) => void;
  /** Takes the key out of server text before it is kept or shown. */
  redact?: (text: string) => string;
  /** Reads the code (`key_banned`, say) from a 429's body, whose format is the API's. */
  errorCode?: (body: string) => string | undefined;
}

/** The gate's learning: what an answer tells of the key's limits, into the shared state. */
export class Learning {
  /**
   * Blocks this process has learnt (a cooldown, another client on the key): a request let go
   * before one and not yet sent asks again rather than leave into it.
   */
  blocksLearnt = 0;

  constructor(
    private readonly options: LearningOptions,
    private readonly time: ServerClock,
    private readonly shared: SharedState,
    private readonly stops: Stops,
  ) {}

  /** Takes in the answer to claim `id`, sent at `sentAt` (steady), with `onTheWire` others out. */
  async learn(
    id: string,
    request: HttpRequest,
    response: HttpResponse,
    sentAt: number,
    onTheWire: number,
  ): Promise<void> {
    const limited = response.status === 429;
    const said = limited ? this.options.errorCode?.(response.text) : undefined;
    const code = said === undefined ? undefined : (this.options.redact?.(said) ?? said);
    // Read once, on this process's steady clock, after the Date has told this process's
    // offset what it can.
    const answeredAt = this.time.steadyNow();
    this.time.measure(readDate(response.headers), sentAt, answeredAt);
    const heard = readRateHeaders(response, answeredAt + (this.time.placedOffsetMs ?? 0));
    // The state keeps Reset on the server's clock, no earlier than it may be, and so a wait
    // from the server's now.
    const slack = this.time.uncertaintyMs;
    const retryAfterMs = heard.retryAfterMs === undefined ? undefined : heard.retryAfterMs + slack;
    const window = heard.window && {
      ...heard.window,
      resetAtMs: heard.window.resetAtMs + (heard.resetFromNow ? slack : 0),
    };
    const answer = { status: response.status, window, retryAfterMs, code };
    let [now, stop, crowded, blocked] = [0, false, false, false];
    const observe = (current: GateState) => {
      now = this.time.now(current);
      const seen = this.time.seen();
      const next = observeAnswer(current, id, now, { ...answer, seen }, this.options.random);
      stop = refusedTooOften(current, next);
      crowded = next.crowdedUntilMs !== undefined && current.crowdedUntilMs === undefined;
      blocked =
        crowded || (next.cooldownUntilMs ?? -Infinity) > (current.cooldownUntilMs ?? -Infinity);
      return next;
    };
    // The answer stands even if the store is lost now: the request went, and its caller must
    // hear how it ended; the next request of this process stops instead.
    const state = await this.shared.settle(observe);
    if (blocked) this.blocksLearnt++;
    if (crowded && state) this.sayCrowded(state, now);
    if (stop && state) this.stops.refusalStop(request, state);
    if (limited && state) {
      const until = state.cooldownUntilMs ?? now;
      this.options.trace?.(
        `429${code ? ` ${code}` : ''}: nothing more is sent on this key for ${formatDuration(until - now)}` +
          (retryAfterMs === undefined
            ? ' (the server gave no Retry-After)'
            : ` (Retry-After ${formatDuration(retryAfterMs)})`) +
          ` after ${request.method} ${request.url}` +
          (onTheWire > 0
            ? `; ${requests(onTheWire)} sent before it ${onTheWire === 1 ? 'is' : 'are'} still on the wire`
            : ''),
      );
    }
  }

  /**
   * Another client uses the key: requests go one at a time until its window's Reset. Said once
   * a run; with a store shared by machines, the other client is not pets, and a store would
   * not help.
   */
  private sayCrowded(state: GateState, now: number): void {
    this.options.trace?.(
      `another client uses this key: one request at a time for ${formatDuration((state.crowdedUntilMs ?? now) - now)}`,
    );
    if (this.stops.anotherClient || this.shared.store.shared !== undefined) return;
    this.stops.anotherClient = true;
    this.options.warn?.(ANOTHER_CLIENT);
  }
}
