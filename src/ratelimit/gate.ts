import { InterruptedError, NetworkError, SharedStateError } from '../core/errors.js';
import type { HttpRequest, HttpResponse, HttpSender } from '../http/types.js';
import { releaseSend, type GateState } from './policy.js';
import { MAX_ATTEMPTS, networkAttempts, retryDecision } from './retry-policy.js';
import { ServerClock } from './server-clock.js';
import { memoryStore, type StateStore } from './state-store.js';
import { Deciding } from './gate-decide.js';
import { Learning, type LearningOptions } from './gate-learn.js';
import { SharedState, type ProcessView } from './gate-shared.js';
import { Stops } from './gate-stops.js';
import { Waits, type Waiter } from './gate-waits.js';
import type { WaitLimits } from './wait-limits.js';

export { ANOTHER_CLIENT } from './gate-stops.js';
export { CLAIM_LEASE_MS, type ProcessView } from './gate-shared.js';
export type { Waiter, WaitNotice } from './gate-waits.js';

/** With its wait limits (wait-limits.ts): by default, none but maxWaitMs. */
export interface GateOptions extends LearningOptions, Partial<WaitLimits> {
  send: HttpSender;
  maxWaitMs: number;
  /** The key's state, shared with the other pets processes that use it. */
  store?: StateStore;
  /** How long a request may be in flight before its claim on the budget lapses. */
  claimMs: number;
  /**
   * This process's name, and what it can see of another by its name (`<pid>.<namespace>`,
   * core/process-alive.ts): the claims of a process that has ended are voided, at once or as
   * a lease lapses (gate-shared.ts). Without it (tests of one process), none is.
   */
  processes?: ProcessView;
  wait?: Waiter;
}

/** How long a go may wait to be acted on (its request's beforeSend) before it is asked again. */
const STALE_GO_MS = 1_000;

/**
 * Sits between the API client and the transport, shared by every request of the process on
 * one key. Each request asks the policy at the moment it would go (gate-decide.ts), waits as
 * long as it says (gate-waits.ts), and its answer feeds the shared state (gate-learn.ts); one
 * stop ends the run (gate-stops.ts). The waits of a whole command, however many requests, are
 * bounded by --max-wait.
 */
export class RateGate {
  /** Requests of this process on the wire now: sent, not yet answered. */
  private onTheWire = 0;
  /** 401s and 403s answered to this process: the key refused, which stops a batch. */
  private keyRefusals = 0;
  /** The server's time as this process measures it: the shared state's moments are on it. */
  private readonly time: ServerClock;
  private readonly waits: Waits;
  private readonly stops: Stops;
  private readonly shared: SharedState;
  private readonly deciding: Deciding;
  private readonly learning: Learning;

  constructor(private readonly options: GateOptions) {
    const trace = (line: string) => options.trace?.(line);
    const { clock, processes, warn, maxWaitMs } = options;
    const { eachWaitMs = Infinity, stopOnBan = false } = options;
    const limits = { maxWaitMs, eachWaitMs, stopOnBan };
    const wait = options.wait ?? ((ms, _notice, signal) => clock.sleep(ms, signal));
    const time = (this.time = new ServerClock(clock));
    const self = processes?.self ?? `${process.pid}.unknown`;
    const claimPrefix = `${self}.${Math.floor(options.random() * 1e9).toString(36)}`;
    const waits = (this.waits = new Waits(limits, clock, time, wait, trace, options.random));
    const stops = (this.stops = new Stops(clock, time, waits, trace, options.redact));
    const hooks = { processes, warn, trace, learnt: () => waits.wake() };
    const shared = new SharedState(options.store ?? memoryStore(), claimPrefix, time, stops, hooks);
    this.shared = shared;
    this.deciding = new Deciding(claimPrefix, options.claimMs, clock, time, shared, stops, waits);
    this.learning = new Learning(options, time, shared, stops);
  }

  /**
   * The key's state as all processes know it, for `pets quota`, with its cooldown and Reset
   * on this machine's clock, as people read them.
   */
  get snapshot(): GateState {
    const state = this.shared.store.read();
    const serverNow = this.time.likelyNow(state);
    const local = (serverMs: number) => serverMs - serverNow + this.options.clock.now();
    const snapshot = { ...state };
    if (state.quota) snapshot.quota = { ...state.quota, resetAtMs: local(state.quota.resetAtMs) };
    if (state.cooldownUntilMs !== undefined)
      snapshot.cooldownUntilMs = local(state.cooldownUntilMs);
    return snapshot;
  }

  /**
   * Where the key's state is kept: a store shared by machines (its URL without a password),
   * or files on this machine; and where in it.
   */
  get storeView(): { shared?: string; place?: string } {
    const { shared, place } = this.shared.store;
    return { shared, place };
  }

  /**
   * The caller has `count` more requests to send after those already under way (a batch's
   * records not yet started): a process with many to send shares a window with short ones.
   * False once the server has said it states no limit: there is no window to share.
   */
  expect(count: number): boolean {
    this.deciding.backlog = Math.max(0, Math.floor(count));
    this.time.carriesExactly = false;
    return this.shared.known.unlimited !== true;
  }

  /**
   * Refuses (exit 1) a run that needs its state shared with other processes on the key (a
   * batch) when the state cannot be written.
   */
  async requireShared(): Promise<void> {
    try {
      await this.shared.store.check?.();
    } catch (error) {
      throw new SharedStateError(this.shared.store.folder ?? 'the config folder', error);
    }
  }

  get sentCount(): number {
    return this.stops.sent;
  }

  readonly send: HttpSender = async (request) => {
    let networkFailures = 0;
    // What must precede the send (a journal's intent) runs once, when the request may go.
    let beforeSend = request.beforeSend;
    const announce = async () => {
      const run = beforeSend;
      beforeSend = undefined;
      await run?.();
    };
    for (let attempt = 1; ; attempt++) {
      const id = await this.deciding.reserve(request, attempt);
      let response: HttpResponse;
      let sentAt = 0;
      let onTheWire = false;
      try {
        if (request.stopSending?.aborted) throw new InterruptedError();
        if (beforeSend && !(await this.letGo(request, id, announce))) {
          attempt--;
          continue;
        }
        sentAt = this.time.steadyNow();
        this.onTheWire++;
        onTheWire = true;
        response = await this.options.send(request);
        this.onTheWire--;
        onTheWire = false;
        // Counted at once, before anything else runs: one let go now does not leave (awaitStop).
        if (response.status === 401 || response.status === 403) this.keyRefusals++;
        request.left?.();
      } catch (error) {
        if (onTheWire) this.onTheWire--;
        networkFailures = await this.afterFailure(error, request, id, onTheWire, {
          attempt,
          networkFailures,
        });
        continue;
      }
      if ((await this.afterAnswer(request, id, response, sentAt, attempt)) === 'final') {
        return response;
      }
    }
  };

  /**
   * Lets go a request that must do something first (a journal's intent, synced): done now,
   * not before the wait, so that a request waiting out a limit has done nothing. False if its
   * go has gone stale meanwhile: it asks again, its intent written (an intent says a request
   * may have left, not that it did). Throws the run's stop if one was decided meanwhile.
   */
  private async letGo(
    request: HttpRequest,
    id: string,
    announce: () => Promise<void>,
  ): Promise<boolean> {
    const letGoAt = this.time.steadyNow();
    const blocksAtGo = this.learning.blocksLearnt;
    const refusalsAtGo = this.keyRefusals;
    await announce();
    // A 401 or 403 came while the intent was written: the key is refused, and the batch
    // stops on it once that answer has made its way here. Wait for that stop (a second at
    // most) rather than send; if none comes, the go has gone stale below.
    if (this.keyRefusals !== refusalsAtGo) {
      await this.waits.pause(STALE_GO_MS + 1, undefined, request, false, false);
    }
    // One stop for the whole run: a stop decided while the intent was written (a 429's
    // cooldown past --max-wait, a 403, a lost store) sends nothing more. The request is
    // taken back, with its claim, as any that fails before it leaves (afterFailure).
    const stop = this.stops.stopFor(request, true);
    if (stop) throw stop;
    // A go is good for the moment it was given: one that took long to act on (a slow
    // disk) may now fall in another window, or past its claim; and one given before a
    // block this process has learnt since (a 429 answered meanwhile) would leave into
    // it. Ask again.
    if (
      this.time.steadyNow() - letGoAt > STALE_GO_MS ||
      this.learning.blocksLearnt !== blocksAtGo
    ) {
      this.stops.unsend();
      await this.shared.settle((state) => releaseSend(state, id));
      return false;
    }
    return true;
  }

  /**
   * A request that failed before it was answered (`wasOnTheWire` if it had left): rethrows
   * what is not worth retrying, or waits a backoff and returns the network failures so far.
   */
  private async afterFailure(
    error: unknown,
    request: HttpRequest,
    id: string,
    wasOnTheWire: boolean,
    tries: { attempt: number; networkFailures: number },
  ): Promise<number> {
    // Not a byte left: it was not sent.
    const unsent = error instanceof NetworkError && !error.requestMayHaveArrived;
    if (!wasOnTheWire || unsent) this.stops.unsend();
    else request.left?.();
    await this.shared.settle((state) => releaseSend(state, id));
    if (!(error instanceof NetworkError) || !error.worthRetrying) throw error;
    const networkFailures = tries.networkFailures + 1;
    const outcome = { kind: 'network', mayHaveArrived: error.requestMayHaveArrived } as const;
    const attempts = networkAttempts(error.code);
    const giveUp = error.afterAttempts(networkFailures);
    if (retryDecision(request.method, outcome) !== 'retry' || networkFailures >= attempts)
      throw giveUp;
    const reason = error.code.replace(/_/g, ' ');
    const notice = { reason, attempt: tries.attempt + 1, maxAttempts: attempts };
    if (!(await this.waits.retryPause(networkFailures, notice, request))) throw giveUp;
    return networkFailures;
  }

  /**
   * Learns from an answer, then says whether it is the request's last ('final'), or whether
   * the request goes again ('again'), after a backoff if need be. Throws the stop of a 429
   * that ends the run.
   */
  private async afterAnswer(
    request: HttpRequest,
    id: string,
    response: HttpResponse,
    sentAt: number,
    attempt: number,
  ): Promise<'final' | 'again'> {
    const decision = retryDecision(request.method, { kind: 'response', status: response.status });
    await this.learning.learn(id, request, response, sentAt, this.onTheWire);
    if (decision === 'rate-limited') {
      if (this.stops.stop) throw this.stops.stop;
      if (attempt >= MAX_ATTEMPTS)
        throw this.stops.stillLimited(request, attempt, this.shared.safeRead());
      return 'again'; // the next reservation waits out the cooldown, or gives up
    }
    if (decision === 'final' || attempt >= MAX_ATTEMPTS) return 'final';
    const reason = `retry after ${response.status}`;
    const notice = { reason, attempt: attempt + 1, maxAttempts: MAX_ATTEMPTS };
    return (await this.waits.retryPause(attempt, notice, request)) ? 'again' : 'final';
  }

  /**
   * Gives back the claims taken ahead that no request used, and closes the store. Called when
   * the process is done sending.
   */
  async finish(): Promise<void> {
    await this.deciding.releaseReserved();
    await this.shared.close();
  }
}
